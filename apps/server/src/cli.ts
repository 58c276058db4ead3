import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './cli-usage-error.ts';
import { ConfigError } from './config.ts';
import { OperatorProblem } from './operator/operator-problem.ts';

/**
 * Operator commands, run with the same settings (.env, environment) as the server:
 *   npm run atrium -- create-organization --name "Acme" --site acme --email ada@acme.com --password '…'
 *   npm run atrium -- delete-organization --site acme --yes
 *   npm run atrium -- rotate-keys
 *   npm run atrium -- outbox [--to ada@acme.com]
 *   npm run atrium -- set-plan --site acme --plan business --seats 50 [--status active]
 *   npm run atrium -- webhook-log [--site acme] [--limit 20]
 *   npm run atrium -- mail-config --out DIR
 *   npm run atrium -- install --public-url https://atrium.example.com (as root, Debian 12)
 *   npm run atrium -- update (as root, from the new checkout; --rollback goes back)
 *   npm run atrium -- doctor (as root; exits 0 only when every check passes)
 *   npm run atrium -- backup [--verify] / restore (as root; restic, see operator/backup)
 * A mistake stops the command with one line naming it; the usage is printed for --help (or with no
 * command at all).
 */
async function usage(): Promise<string> {
  const [{ INSTALL_USAGE }, { UPDATE_USAGE }, { DOCTOR_USAGE }, { BACKUP_USAGE }] = await Promise.all([
    import('./operator/install/install-options.ts'),
    import('./operator/update/update.command.ts'),
    import('./operator/doctor/doctor.command.ts'),
    import('./operator/backup/backup.command.ts'),
  ]);
  return `Usage:
  npm run atrium -- create-organization --name <name> --site <site-name> --email <admin e-mail> --password <password>
                                        [--first-name <first>] [--last-name <last>]
  npm run atrium -- delete-organization --site <site-name> --yes
  npm run atrium -- rotate-keys
  npm run atrium -- outbox [--to <e-mail>] [--limit <n>]
  npm run atrium -- set-plan --site <site-name> --plan <plan key> [--seats <n>]
                             [--status trial|active|past_due|cancelled]
  npm run atrium -- webhook-log [--site <site-name>] [--limit <n>]
  npm run atrium -- mail-config --out <dir> [--listen all|<ip>] [--atrium-url <url>] [--dovecot-dir /etc/dovecot]
                                [--mail-root /var/vmail] [--mail-user vmail] [--tls-cert <file> --tls-key <file>]
                                [--smtp-port 25] [--submission-port 587] [--imap-port 143] [--lmtp-port 24] [--auth-port 12345]
                                [--no-rspamd] [--rspamd-port 11332] [--rspamd-controller-port 11334] [--redis-port 6379]
${INSTALL_USAGE}
${UPDATE_USAGE}
${DOCTOR_USAGE}
${BACKUP_USAGE}`;
}

/** The checkout this command runs from (install and update deploy it). */
const CHECKOUT = path.resolve(import.meta.dirname, '../../..');

// As the server: DATA_DIR and what the embedded database writes are for this user only.
process.umask(0o077);

if (existsSync('.env')) process.loadEnvFile('.env');

/** Each command's module is loaded only when it runs: doctor starts in a fraction of a second. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // The usage only when asked for it, or when there is nothing to run; a mistake gets one line.
  if (command === undefined) {
    console.error(await usage());
    process.exitCode = 1;
    return;
  }
  if (argv.includes('--help') || argv.includes('-h') || command === 'help') {
    console.log(await usage());
    return;
  }
  if (command === 'install') {
    const { installCommand } = await import('./operator/install/install.command.ts');
    return installCommand(rest, CHECKOUT);
  }
  if (command === 'update') {
    const { updateCommand } = await import('./operator/update/update.command.ts');
    return updateCommand(rest, CHECKOUT);
  }
  if (command === 'doctor') {
    const { doctorCommand } = await import('./operator/doctor/doctor.command.ts');
    if (!(await doctorCommand(rest, CHECKOUT))) process.exitCode = 1;
    return;
  }
  if (command === 'backup') {
    const { backupCommand } = await import('./operator/backup/backup.command.ts');
    if (!(await backupCommand(rest))) process.exitCode = 1;
    return;
  }
  if (command === 'restore') {
    const { restoreCommand } = await import('./operator/backup/restore.command.ts');
    return restoreCommand(rest);
  }
  const { runSiteCommand } = await import('./cli-site-commands.ts');
  if (await runSiteCommand(command, rest)) return;
  throw new UsageError(`Unknown command "${command}" (npm run atrium -- --help lists the commands)`);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  const code = (error as { code?: string }).code;
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof OperatorProblem) {
    console.error(error.message);
  } else if (code?.startsWith('ERR_PARSE_ARGS_')) {
    // node:util parseArgs: an unknown option, a value missing or given to a flag, a stray argument.
    // Its message may run on ("To specify a positional argument…"): its first sentence names the problem.
    const command = process.argv[2];
    console.error(`${command}: ${(error as Error).message.split(/\.\s|\n/)[0]!.replace(/\.$/, '')}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
}
