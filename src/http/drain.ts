import type { Server } from 'node:http';

/**
 * Draining before a shutdown (docs/server.md#shutdown). From `begin()` on, /readyz answers 503
 * so load balancers stop choosing this replica, while every request is still answered in full;
 * each response then carries `Connection: close`, so a proxy's kept-alive connections end one by
 * one instead of being cut when the listener closes with a request on its way.
 */
export class Drain {
  #active = false;

  /** True from `begin()` on. */
  get active(): boolean {
    return this.#active;
  }

  begin(server: Server): void {
    if (this.#active) return;
    this.#active = true;
    // Before every other listener, the go-link front included: whoever answers, the response
    // is written with `Connection: close` and its connection ends after it.
    server.prependListener('request', (_req, res) => {
      res.shouldKeepAlive = false;
    });
  }
}
