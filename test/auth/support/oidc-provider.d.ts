// The package ships no type declarations; the tests use this much of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: new (init: { accountId: string; clientId: string }) => {
      addOIDCScope(scope: string): void;
      addOIDCClaims(claims: string[]): void;
      save(): Promise<string>;
    };
  }
  export default Provider;
}
