import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendApiError } from './errors.js';

/**
 * The API's answer for a request no route takes (docs/api.md#errors): `405` with `Allow` when
 * the path is a route's and only the method is wrong, else `404`. The routes' paths are
 * collected as they are registered, so the table is the router's own and cannot drift.
 */
export class RouteMethods {
  private readonly routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  /** Collects the routes later registered in `instance` and its children. */
  watch(instance: FastifyInstance): void {
    instance.addHook('onRoute', (route) => {
      if (route.url.includes('*')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const source = `^${route.url
        .split('/')
        .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`;
      let entry = this.routes.find((r) => r.pattern.source === source);
      if (!entry) {
        entry = { pattern: new RegExp(source), methods: new Set() };
        this.routes.push(entry);
      }
      for (const m of methods) entry.methods.add(m.toUpperCase());
    });
  }

  /** The methods a path answers to (HEAD beside GET, as Fastify serves it), none for an unknown path. */
  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) out.add(m);
    if (out.has('GET')) out.add('HEAD');
    return [...out].sort();
  }

  /** The handler for whatever no route took. */
  readonly unmatched = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const path = req.url.split('?', 1)[0]!;
    const allowed = this.allowed(path);
    if (allowed.length === 0 || allowed.includes(req.method)) return sendApiError(reply, 'NOT_FOUND', 'not found');
    reply.header('allow', allowed.join(', '));
    return sendApiError(reply, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${allowed.join(', ')}`);
  };
}
