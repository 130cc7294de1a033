import { Type } from '@sinclair/typebox';
import { Id, Nullable, ref, Timestamp } from './ref.js';

/** Personal access tokens (docs/api.md#config-keywords-users-and-tokens): the plaintext only in the creation response. */

export const CreateTokenSchema = Type.Object(
  {
    name: Type.String({ description: 'a label, e.g. `ci`' }),
    expires_at: Type.Optional(Nullable(Timestamp('omitted or null = never expires'))),
  },
  { $id: 'CreateTokenRequest' },
);

const tokenFields = {
  id: Id(),
  name: Type.String(),
  created_at: Timestamp(),
};

export const TokenSchema = Type.Object(
  {
    ...tokenFields,
    last_used_at: Type.Optional(Timestamp('omitted when never used')),
    expires_at: Type.Optional(Timestamp('omitted when the token never expires')),
  },
  { $id: 'TokenResponse', additionalProperties: false },
);

export const TokenCreatedSchema = Type.Object(
  {
    ...tokenFields,
    expires_at: Type.Optional(Timestamp('omitted when the token never expires')),
    token: Type.String({ description: 'the plaintext `jl_…` token; shown only in this response' }),
  },
  { $id: 'TokenCreatedResponse', additionalProperties: false },
);

export const TokenListSchema = Type.Object(
  { tokens: Type.Array(ref(TokenSchema)) },
  { $id: 'TokenListResponse', additionalProperties: false },
);
