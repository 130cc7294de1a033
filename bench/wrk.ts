import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The core the load generator runs on; the measured servers get the other one. */
export const LOAD_CORE = '1';
export const SERVER_CORE = '0';

export interface LoadShape {
  /** Lua expression of the request path for request number `n` (0 ≤ n < count). */
  path: string;
  /** How many distinct requests the path cycles through. */
  count: number;
  /** Request headers. wrk adds its own `Host` unless this spells it `Host`, capitalised. */
  headers?: Record<string, string>;
}

export interface LoadResult {
  rps: number;
  requests: number;
  p99Ms: number;
  /** The slowest answer of the run. */
  maxMs: number;
}

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The wrk script of a load shape: each request takes the next number of a
 * stride through `count`, so consecutive requests name different links and
 * no cache of one hot row flatters either server.
 */
function script(shape: LoadShape): string {
  const headers = Object.entries(shape.headers ?? {})
    .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
    .join(', ');
  return [
    'local i = 0',
    `local headers = { ${headers} }`,
    'request = function()',
    `  i = (i + 7919) % ${shape.count}`,
    '  local n = i',
    `  return wrk.format("GET", ${shape.path}, headers)`,
    'end',
    '',
  ].join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'joe-links-wrk-'));
let scripts = 0;

/**
 * Runs wrk against 127.0.0.1:port, pinned to its own core with `taskset`,
 * and fails if any answer was not a 2xx/3xx or any socket error occurred.
 */
export async function wrk(port: number, shape: LoadShape, opts: { connections: number; seconds: number }): Promise<LoadResult> {
  const file = join(dir, `load-${scripts++}.lua`);
  writeFileSync(file, script(shape));
  const args = [
    '-c',
    LOAD_CORE,
    'wrk',
    '-t1',
    `-c${opts.connections}`,
    `-d${opts.seconds}s`,
    '--latency',
    '-s',
    file,
    `http://127.0.0.1:${port}`,
  ];
  const { stdout } = await run('taskset', args, { maxBuffer: 1 << 20 });
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  if (bad || (socket && socket.slice(1).some((v) => v !== '0'))) throw new Error(`load run had failures:\n${stdout}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  // `Latency  avg  stdev  max  +/- stdev`, each with its unit.
  const latency = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s)\b/.exec(stdout);
  if (!Number.isFinite(rps) || !Number.isFinite(requests) || !p99 || !latency) throw new Error(`unreadable wrk output:\n${stdout}`);
  const ms = (m: RegExpExecArray) => Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2] as 'us' | 'ms' | 's'];
  return { rps, requests, p99Ms: ms(p99), maxMs: ms(latency) };
}
