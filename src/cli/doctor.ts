import type { Command } from 'commander';
import { out } from './support.js';
import { runDoctor, type CheckResult, type CheckStatus } from '../doctor/index.js';

/**
 * `joe-links doctor` (docs/operations.md#doctor): one line per check, each problem with its
 * fix, and a non-zero exit when anything failed, so scripts and container probes can use it.
 */

const LABEL: Record<CheckStatus, string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };

export function formatCheck(r: CheckResult): string {
  const line = `${LABEL[r.status].padEnd(4)}  ${r.check.padEnd(13)}  ${r.detail}`;
  return r.fix ? `${line} — fix: ${r.fix}` : line;
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check the configuration, the database and the services joe-links depends on')
    .action(async () => {
      const results = await runDoctor({ env: process.env, cwd: process.cwd() });
      for (const r of results) out(formatCheck(r));
      const failed = results.filter((r) => r.status === 'fail').length;
      const warned = results.filter((r) => r.status === 'warn').length;
      const warnings = warned > 0 ? ` (${warned} warning${warned > 1 ? 's' : ''})` : '';
      if (failed > 0) {
        out(`${failed} check${failed > 1 ? 's' : ''} failed${warnings}`);
        process.exitCode = 1;
      } else {
        out(`no problems found${warnings}`);
      }
    });
}
