import { SerializerSelector, type Serializer, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * Response serializers compiled when a route first answers, not when the app
 * starts (docs/server.md#startup). Fastify compiles a fast-json-stringify
 * function for every response schema of every route at `ready`: about three
 * quarters of a start, for functions most processes never call (a CLI command,
 * a replica that only redirects, a test server that asks three routes). The
 * compiled function is the one Fastify would have built, and it is kept per
 * process by its schema, so apps built again in one process (tests, the
 * OpenAPI generation) compile each schema once.
 */

const compiled = new Map<string, Serializer>();

/**
 * The serializer factory Fastify's schema controller takes. `track` receives
 * each route's compile step, so `compileSerializers` can run them all at once.
 */
export function lazySerializers(track: (compile: () => unknown) => void): SerializerFactory {
  const select = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = select(externalSchemas, options);
    // The shared schemas and options a function is compiled with are part of what it is.
    const context = JSON.stringify([externalSchemas, options ?? null]);
    return (route) => {
      let serialize: Serializer | undefined;
      const build = (): Serializer => {
        if (serialize) return serialize;
        const key = `${context}\u0000${JSON.stringify(route.schema)}`;
        serialize = compiled.get(key);
        if (!serialize) {
          serialize = compile(route);
          compiled.set(key, serialize);
        }
        return serialize;
      };
      track(build);
      return (data) => build()(data);
    };
  };
}
