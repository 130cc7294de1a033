import { Type } from '@sinclair/typebox';

/** The public keyword templates (docs/api.md#config-keywords-users-and-tokens). */

export const KeywordTemplateSchema = Type.Object(
  {
    keyword: Type.String(),
    url_template: Type.String({ description: 'contains `{slug}`' }),
  },
  { $id: 'KeywordTemplateResponse', additionalProperties: false },
);
