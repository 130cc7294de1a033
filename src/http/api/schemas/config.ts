import { Type } from '@sinclair/typebox';

/** The public server settings for clients (docs/api.md#config-keywords-users-and-tokens). */

export const ConfigSchema = Type.Object(
  { short_keyword: Type.String({ description: 'the prefix people type before slugs, e.g. `go`' }) },
  { $id: 'ConfigResponse', additionalProperties: false },
);
