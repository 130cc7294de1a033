// `joe-links serve` without the go-link front: every go link is resolved by the web layer's
// catch-all Fastify route (bench/redirect.ts measures what the front saves). Configured by the
// same JOE_* variables; stops on SIGTERM.
import { loadConfig } from '../dist/src/config.js';
import { startServer } from '../dist/src/server.js';
import { tuneV8ForServing } from '../dist/src/v8Tuning.js';

const config = loadConfig();
tuneV8ForServing();
const server = await startServer(config, { goLinkFront: false, logger: { level: config.logLevel } });
process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
