import { Type } from '@sinclair/typebox';
import { Nullable, ref } from './ref.js';

/** Tags as the API lists them (docs/api.md#tags). */

export const TagSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    link_count: Type.Integer({ description: 'links carrying the tag that the caller may see' }),
  },
  { $id: 'TagResponse', additionalProperties: false },
);

export const TagListSchema = Type.Object(
  { tags: Type.Array(ref(TagSchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'TagListResponse', additionalProperties: false },
);
