import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { RunningServer } from '../server.js';
import { tuneV8ForServing } from '../v8Tuning.js';
import { cliCommand } from './invocation.js';

/**
 * `joe-links serve`: the configuration, pending migrations, then HTTP until SIGTERM or SIGINT
 * (docs/server.md#commands, docs/operations.md#shutdown).
 */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('apply pending migrations and start the HTTP server')
    .action(async () => {
      const config = loadConfig();
      tuneV8ForServing();
      // Listened for from the start: as a container's PID 1 the process has no default action for
      // SIGTERM, so a stop during migrations would otherwise go unheard (docs/operations.md#shutdown).
      let server: RunningServer | null = null;
      let signalledDuringStart: string | null = null;
      let stopping = false;
      const stop = (signal: string) => {
        if (!server) {
          signalledDuringStart = signal;
          return;
        }
        const running = server;
        // A second signal (Ctrl-C again at a terminal) cuts the drain window short; the requests
        // in flight and the queued clicks are still seen to.
        if (stopping) {
          running.app.log.info(`${signal} received again, ending the drain`);
          running.endDrain();
          return;
        }
        stopping = true;
        running.app.log.info(`${signal} received, shutting down`);
        running.close({ drainMs: config.shutdownDrainMs }).then(
          () => process.exit(0),
          (e) => {
            running.app.log.error(`shutdown failed: ${(e as Error).message}`);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // Loaded only here: the other commands start in a fraction of the time without the web stack.
      const { startServer } = await import('../server.js');
      const { consoleStyle, serverLoggerOptions } = await import('../logging.js');
      const style = consoleStyle(config.logFormat, process.stdout);
      server = await startServer(config, {
        localBootstrap: true,
        logger: serverLoggerOptions(config.logLevel, style),
        bannerStyle: { decorated: style.format === 'pretty', colors: style.colors },
        cliCommand: cliCommand(),
      });
      if (signalledDuringStart) stop(`${signalledDuringStart} (during startup)`);
    });
}
