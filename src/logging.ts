import { destination, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormatSetting } from './config.js';

/**
 * How `joe-links serve` writes to its console (docs/operations.md#logs): JSON
 * lines for log collectors, readable lines for a person at a terminal.
 */

export type LogFormat = 'pretty' | 'json';

export interface ConsoleStyle {
  format: LogFormat;
  /** ANSI colours: a terminal that has them, unless NO_COLOR or TERM=dumb says otherwise. */
  colors: boolean;
}

/** `auto` means readable lines when stdout is a terminal and JSON when it is a pipe or a file. */
export function chooseLogFormat(setting: LogFormatSetting, stdoutIsTerminal: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

export function consoleStyle(setting: LogFormatSetting, stdout: NodeJS.WriteStream): ConsoleStyle {
  const terminal = stdout.isTTY === true;
  const format = chooseLogFormat(setting, terminal);
  return { format, colors: format === 'pretty' && terminal && stdout.hasColors() };
}

/**
 * Fastify's `logger` option for a style. Lines are written synchronously, as
 * they happen: pino's default buffers them until the event loop next polls,
 * which a busy start-up postpones, so the sign-in banner overtook the lines
 * logged before it. The server logs no line per request unless the access log is
 * on (`JOE_ACCESS_LOG`, off by default), so this costs the hot path nothing by default.
 */
export function serverLoggerOptions(level: string, style: ConsoleStyle): { level: string; stream: DestinationStream } {
  if (style.format === 'json') return { level, stream: destination({ dest: 1, sync: true }) };
  // Formatted in this thread (a transport would format on another and lose the order again).
  const stream = pretty({
    sync: true,
    colorize: style.colors,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return { level, stream };
}
