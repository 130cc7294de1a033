import { Command, CommanderError } from 'commander';
import { MigrationError } from '../db/migrate.js';
import { isAppError } from '../domain/errors.js';
import { registerAuthCommands } from './auth.js';
import { registerDoctorCommand } from './doctor.js';
import { registerGroupCommands } from './groups.js';
import { registerLinkCommands } from './links.js';
import { registerMaintenanceCommands } from './maintenance.js';
import { registerMigrateCommand } from './migrate.js';
import { registerServeCommand } from './serve.js';
import { CliError } from './support.js';
import { registerUserCommands } from './users.js';
import { ConfigError } from '../config/sources.js';

/** The `joe-links` program: every command, in the order `--help` lists them. */
export function buildCli(): Command {
  const program = new Command('joe-links')
    .description('Self-hosted go links: short memorable slugs that redirect to long URLs.')
    .showHelpAfterError()
    .exitOverride();

  registerServeCommand(program);
  registerMigrateCommand(program);
  registerUserCommands(program);
  registerGroupCommands(program);
  registerLinkCommands(program);
  registerMaintenanceCommands(program);
  registerAuthCommands(program);
  registerDoctorCommand(program);
  return program;
}

/** Turns any failure into one clear line on stderr. */
export function describeError(e: unknown): string {
  if (e instanceof ConfigError || e instanceof CliError || e instanceof MigrationError) return e.message;
  if (isAppError(e)) return e.message;
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (err?.syscall === 'listen') return listenFailure(err);
  if (err?.code === 'ECONNREFUSED') return `cannot connect to the database: ${err.message}`;
  return err?.message ?? String(e);
}

/** The server could not take its address: name the setting that chose it. */
function listenFailure(err: NodeJS.ErrnoException & { address?: string; port?: number }): string {
  const where = err.address === undefined ? 'the address' : `${err.address.includes(':') ? `[${err.address}]` : err.address}:${err.port}`;
  if (err.code === 'EADDRINUSE') {
    return `cannot listen on ${where}: the address is already in use (is another joe-links running?); stop what holds it or set JOE_HTTP_ADDR to a free port`;
  }
  if (err.code === 'EACCES')
    return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); set JOE_HTTP_ADDR to a higher port`;
  if (err.code === 'EADDRNOTAVAIL')
    return `cannot listen on ${where}: no network interface has that address; correct the host in JOE_HTTP_ADDR`;
  return `cannot listen on ${where} (JOE_HTTP_ADDR): ${err.message}`;
}

/** Runs one command line; a failure is one line on stderr and a non-zero exit. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode);
    process.stderr.write(`joe-links: ${describeError(e)}\n`);
    process.exit(1);
  }
}
