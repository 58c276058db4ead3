import { parseArgs } from 'node:util';
import { operatorStatusSchema } from '@atrium/contracts/operator';
import { loadConfig, type Config } from '../../config.ts';
import { createDnsClient } from '../../lib/dns.ts';
import { hostLayout, type HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { readSettingsFile, type Settings } from '../settings-file.ts';
import { backupChecks } from './backup-checks.ts';
import { certificateChecks, type CertificateTarget } from './certificate-checks.ts';
import { fail, formatOutcome, runChecks, summaryLine, type Check, type CheckOutcome } from './check.ts';
import { caddyChecks, mailHostTarget, trustedRoots } from './caddy-checks.ts';
import { cronChecks } from './cron-checks.ts';
import { daemonChecks } from './daemon-checks.ts';
import { rspamdChecks } from './rspamd-checks.ts';
import { saslChecks } from './sasl-checks.ts';
import { sieveChecks } from './sieve-checks.ts';
import { davChecks, webmailChecks } from './dav-webmail-checks.ts';
import { logFileChecks } from './log-file-checks.ts';
import { mailCertificateChecks } from './mail-certificate-checks.ts';
import { diskChecks } from './disk-checks.ts';
import { dkimKeyChecks } from './dkim-key-checks.ts';
import { driftChecks } from './drift-checks.ts';
import { expectedHost, reinstallCommand } from './install-drift.ts';
import { modeChecks } from './mode-checks.ts';
import { publicUrlTarget } from './public-url-target.ts';
import { localServerUrl } from '../local-server.ts';
import { serviceCommand, serviceLog } from './service-commands.ts';

export const DOCTOR_USAGE = '  npm run atrium -- doctor [--root <dir>] [--json]';

/** The server's checks run DNS lookups for every domain: a generous bound, then "does not answer". */
const SERVER_TIMEOUT_MS = 60_000;

/**
 * `npm run atrium -- doctor`: every check of this host, one line each (✓ or ✗, and for each ✗
 * the command or record that fixes it); true when all pass (the CLI exits 0, else 1, for cron
 * and monitors). Run as root: it reads the daemons' secret files and compares owners.
 *
 * The database checks (database, migrations, jobs, when the mail servers last asked, each
 * domain's records) come from the running server's operator endpoint, with OPERATOR_TOKEN from
 * the settings file: the embedded database is locked by the server while it runs, and opening it
 * from here as root would leave root-owned files in DATA_DIR that the atrium user then cannot
 * write. When the server does not answer, a PostgreSQL database (DATABASE_URL) is read directly;
 * the embedded one is reported as not checked, with the fix being to start the server.
 * The checks on the host itself (daemons, their files, keys, modes, disk, certificates) run here.
 */
export async function doctorCommand(
  args: string[],
  checkout: string,
  print: (line: string) => void = console.log,
): Promise<boolean> {
  const { values } = parseArgs({
    args,
    options: { root: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
  });
  const layout = hostLayout(values.root ?? '/');
  const settings = readSettingsFile(layout.settingsFile);
  if (!settings) {
    throw new OperatorProblem(
      `Settings file ${layout.settingsFile}: missing — install first: npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`} --public-url https://…`,
    );
  }
  // The secret is not needed here; a placeholder keeps loadConfig from generating one in DATA_DIR.
  const config = loadConfig({ ...settings, ATRIUM_SECRET: settings.ATRIUM_SECRET ?? 'doctor'.repeat(8) });
  const mail = Boolean(settings.MAIL_SOCKETMAP_ADDRESS);

  const local: CheckOutcome[] = await runChecks(hostChecks(layout, settings, config, checkout, mail));
  const fromServer = await serverOutcomes(layout, config);
  const named = new Set(local.map((o) => o.name));
  const outcomes = [...fromServer.filter((o) => !named.has(o.name)), ...local];
  const ok = outcomes.every((o) => o.ok);
  if (values.json) {
    print(
      JSON.stringify(
        { ok, checks: outcomes.map((o) => ({ ...o, warning: o.warning ?? false, fix: o.fix ?? null })) },
        null,
        2,
      ),
    );
  } else {
    for (const outcome of outcomes) print(formatOutcome(outcome));
    print(summaryLine(outcomes));
  }
  return ok;
}

function hostChecks(
  layout: HostLayout,
  settings: Settings,
  config: Config,
  checkout: string,
  mail: boolean,
): Check[] {
  const checks: Check[] = [];
  if (process.getuid?.() !== 0) {
    checks.push({
      name: 'Run as root',
      run: async () =>
        fail("doctor reads the daemons' secret files and compares owners", 'sudo npm run atrium -- doctor'),
    });
  }
  const expected = expectedHost(layout, checkout);
  if (!expected) {
    checks.push({ name: 'Installed', run: async () => fail('no settings file', reinstallCommand(layout)) });
  } else {
    if (mail)
      checks.push(
        ...daemonChecks(layout),
        ...saslChecks(layout),
        ...rspamdChecks(layout),
        ...sieveChecks(layout),
      );
    checks.push(...driftChecks(layout, expected).filter((c) => mail || c.name === 'Service files'));
    if (mail) checks.push(...dkimKeyChecks(layout));
    checks.push(...modeChecks(layout, expected));
    checks.push(...backupChecks(layout, settings));
    // The parts in front of Atrium and beside the mail daemons, where this host has them.
    checks.push(...caddyChecks(layout, settings));
    if (mail) {
      checks.push(...davChecks(layout, settings));
      if (settings.ATRIUM_INSTALL_WEBMAIL !== 'false') checks.push(...webmailChecks(layout));
      checks.push(...mailCertificateChecks(layout, config.mailHost, config.dataDir));
    }
    checks.push(...cronChecks(layout), ...logFileChecks(layout, { mail }));
  }
  checks.push(
    ...diskChecks([
      { label: 'DATA_DIR', path: config.dataDir },
      ...(mail ? [{ label: 'mail', path: layout.mailRoot }] : []),
      { label: 'backups', path: layout.backupDir },
    ]),
  );
  const targets: CertificateTarget[] = [];
  if (config.publicUrl.protocol === 'https:') targets.push(publicUrlTarget(config, layout.root));
  // MAIL_HOST as Caddy on this host serves it (devices' /dav/, autoconfig). The mail daemons'
  // certificate is the copy "Mail certificate" checks (mail-certificate-checks.ts).
  if (mail && expected) targets.push(mailHostTarget(layout, settings, config.mailHost));
  checks.push(
    ...certificateChecks(targets, {
      dns: config.dnsServers.length > 0 ? createDnsClient(config) : undefined,
      ca: trustedRoots(layout, settings),
    }),
  );
  return checks;
}

/** The server's own checks, from its operator endpoint; or, with it down, what can be read without it. */
async function serverOutcomes(layout: HostLayout, config: Config): Promise<CheckOutcome[]> {
  const url = localServerUrl(config, '/api/operator/status');
  const start = serviceCommand(layout.root, 'atrium', 'restart');
  const atrium = (ok: boolean, detail: string, fix?: string): CheckOutcome => ({
    name: 'Atrium',
    ok,
    detail,
    fix,
  });
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${config.operatorToken ?? ''}` },
      signal: AbortSignal.timeout(SERVER_TIMEOUT_MS),
    });
  } catch (error) {
    const cause =
      ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message) || 'no answer';
    return [
      atrium(
        false,
        `does not answer at ${url} (${cause})`,
        `${serviceCommand(layout.root, 'atrium', 'start')}; if it stops again, ${serviceLog(layout.root, 'atrium')}`,
      ),
      ...(await withoutServer(layout, config)),
    ];
  }
  if (response.status === 404 || response.status === 401) {
    return [
      atrium(
        false,
        response.status === 404
          ? `answers at ${url} but has no OPERATOR_TOKEN (started before install wrote it, or an older release)`
          : `refuses the OPERATOR_TOKEN of ${layout.settingsFile} (it was started with another one)`,
        `${start} (it reads the settings file at start)`,
      ),
    ];
  }
  const parsed = operatorStatusSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) {
    return [
      atrium(
        false,
        `answered ${response.status} at ${url}, not a status report`,
        `${start}; ${serviceLog(layout.root, 'atrium')}`,
      ),
    ];
  }
  return [
    atrium(true, `answers at ${url}`),
    ...parsed.data.checks.map((c) => ({
      name: c.name,
      ok: c.ok,
      warning: c.warning,
      detail: c.detail,
      fix: c.fix ?? undefined,
    })),
  ];
}

/** Atrium is down: PostgreSQL can still be read from here (read-only queries); the embedded database cannot. */
async function withoutServer(layout: HostLayout, config: Config): Promise<CheckOutcome[]> {
  if (!config.databaseUrl) {
    return [
      {
        name: 'Database',
        ok: false,
        detail:
          'not checked: the embedded database is read through the running server only (doctor as root would leave root-owned files in DATA_DIR)',
        fix: serviceCommand(layout.root, 'atrium', 'start'),
      },
    ];
  }
  // Loaded only here: the database driver and the server's checks are most of doctor's start-up.
  const { connectDatabase } = await import('../../db/connect.ts');
  const { serverChecks } = await import('./server-checks.ts');
  let db;
  try {
    db = await connectDatabase({ databaseUrl: config.databaseUrl, onConnectionError: () => undefined });
  } catch (error) {
    return [
      {
        name: 'Database',
        ok: false,
        detail: (error as Error).message,
        fix: 'check that PostgreSQL runs and DATABASE_URL is right',
      },
    ];
  }
  try {
    return await runChecks(
      await serverChecks({ db, config, dns: createDnsClient(config), root: layout.root }),
    );
  } finally {
    await db.destroy();
  }
}
