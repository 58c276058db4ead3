import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { networkInterfaces } from 'node:os';
import { mailHostSpfRecord } from '../../modules/domains/mail-host-spf.ts';
import { hostLayout, type HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { controlService, hasSystemd } from '../service-control.ts';
import { readSettingsFile } from '../settings-file.ts';
import { apply, difference, exists, hostOwnership } from './host-changes.ts';
import {
  debianProblem,
  installPackages,
  missingPackages,
  requiredPackages,
  runCommand,
  systemUserCommands,
} from './host-prerequisites.ts';
import { parseInstallOptions, type InstallOptions } from './install-options.ts';
import { installPlan, installSettings, mailTls, roundcubeHasDatabase } from './install-plan.ts';
import { createRoundcubeDatabase } from './roundcube-database.ts';
import { operatorCertificateProblem, namesCovered } from './operator-certificate.ts';
import {
  describeListener,
  expectedListeners,
  lastErrorLine,
  notListening,
  serviceLogFile,
} from './daemon-listeners.ts';
import { tlsSyncScript } from './mail-tls-files.ts';
import { replaceServer, supervisorRuns } from '../supervisor-reload.ts';
import { webmailPaths } from './webmail-files.ts';
import { dkimSyncArgs, dkimSyncScript } from './service-files.ts';
import { checkoutProblem, deployRelease, releaseDeployed, releaseId } from './release.ts';

/**
 * `npm run atrium -- install`: makes this Debian 12 host run Atrium, with mail and webmail unless
 * told otherwise, and prints the DNS records to publish. Every step compares before it changes,
 * so a second run changes nothing and says so; `--dry-run` lists the changes; `--root DIR` writes
 * everything under DIR, creates no users, installs no packages and starts nothing (tests).
 */
export async function installCommand(args: string[], checkout: string, print = console.log): Promise<void> {
  // Directories install makes on the way (/opt, /etc/… under --root) are the usual 0755; each
  // item then sets its own mode. The CLI's umask 077 is for DATA_DIR.
  process.umask(0o022);
  const rootIndex = args.indexOf('--root');
  const layout = hostLayout(rootIndex >= 0 && args[rootIndex + 1] ? args[rootIndex + 1] : '/');
  const earlier = readSettingsFile(layout.settingsFile);
  const o = parseInstallOptions(args, checkout, earlier);
  const onHost = o.root === '/';
  const isRoot = process.getuid?.() === 0;
  if (onHost && !isRoot && !o.dryRun) {
    throw new OperatorProblem('install changes this host: run it as root (sudo npm run atrium -- install …)');
  }
  if (o.tls) {
    // Caddy reads them as user caddy on a host; under --root nothing runs as caddy.
    const problem = operatorCertificateProblem(o.tls, { asCaddy: onHost });
    if (problem) throw new OperatorProblem(problem);
  }
  const notDebian = debianProblem();
  if (notDebian) throw new OperatorProblem(notDebian);
  const notBuilt = checkoutProblem(checkout);
  if (notBuilt) throw new OperatorProblem(notBuilt);

  const changes: string[] = [];
  const change = (line: string, work?: () => void) => {
    changes.push(line);
    print(`${o.dryRun ? 'would ' : ''}${line}`);
    if (!o.dryRun) work?.();
  };

  const missing = missingPackages(requiredPackages(o, hasSystemd()));
  if (missing.length > 0) {
    if (!onHost) {
      throw new OperatorProblem(
        `Packages missing: ${missing.join(' ')} — apt-get install ${missing.join(' ')} (--root installs none)`,
      );
    }
    change(`install packages ${missing.join(' ')}`, () => installPackages(missing));
  }
  for (const user of systemUserCommands(o)) {
    if (user.done()) continue;
    if (!onHost)
      throw new OperatorProblem(
        `${user.describe}: not done, and --root creates no users — ${user.command.join(' ')}`,
      );
    change(user.describe, () => runCommand(user.command));
  }

  const release = releaseId(checkout);
  if (!releaseDeployed(layout.releases, release)) {
    change(`deploy release ${release}`, () => void deployRelease(checkout, layout.releases, release));
  }

  const settings = installSettings(o, layout, earlier);
  const owners = hostOwnership(isRoot);
  const affected = new Set<string>();
  for (const item of installPlan(o, layout, settings, release)) {
    const why = difference(item, owners);
    if (!why) continue;
    for (const service of ('affects' in item && item.affects) || []) affected.add(service);
    change(why, () => apply(item, owners));
  }

  if (o.mail && o.webmail && !roundcubeHasDatabase(layout)) {
    const { database } = webmailPaths(layout);
    if (!exists(database)) {
      const www = isRoot ? { uid: owners.uid('www-data'), gid: owners.gid('www-data') } : undefined;
      change(`create Roundcube's database ${database}`, () => createRoundcubeDatabase(database, www));
    }
  }

  if (changes.length === 0) {
    print('No changes: this host is as install leaves it.');
  } else {
    print(
      `${changes.length} ${changes.length === 1 ? 'change' : 'changes'}${o.dryRun ? ' would be made (dry run)' : ' made'}.`,
    );
  }
  if (o.tls) printCoverage(o, print);
  if (!o.dryRun) await startServices(o, layout, affected, print);
  if (!settings.SMTP_URL) {
    print(
      `Atrium's own mail (sign-in codes, invitations) waits in its outbox until SMTP_URL is set in ${layout.settingsFile} ` +
        '(a relay that signs and delivers it; then run install again).',
    );
  }
  printDnsRecords(o, print);
}

/**
 * Services, enabled and (re)started where their files changed, each ✓ only once it listens.
 * Atrium first: it writes OpenDKIM's tables at start, which the DKIM sync copies before OpenDKIM
 * reads them. Caddy before the mail daemons: they serve the certificate it holds for MAIL_HOST.
 */
async function startServices(
  o: InstallOptions,
  layout: HostLayout,
  affected: Set<string>,
  print: (line: string) => void,
): Promise<void> {
  if (layout.root !== '/') {
    print(`Under --root nothing is started: the daemons' files are below ${layout.root}.`);
    return;
  }
  const systemd = hasSystemd();
  // Without systemd: Caddy through install's own init script, and cron runs the backup and syncs.
  const caddy = systemd ? 'caddy' : 'atrium-caddy';
  const mailDaemons = [
    // Redis and rspamd before Postfix: its milter answering 4xx while rspamd starts would defer mail.
    ...(o.mail ? ['opendkim', 'redis-server', 'rspamd', 'dovecot', 'postfix', 'radicale'] : []),
    ...(o.mail && o.webmail ? ['php8.2-fpm'] : []),
  ];
  if (affected.has('caddy')) affected.add('atrium-caddy');
  if (systemd) {
    runCommand(['systemctl', 'daemon-reload']);
    runCommand([
      'systemctl',
      'enable',
      'atrium',
      caddy,
      ...mailDaemons,
      'atrium-backup.timer',
      ...(o.mail ? ['atrium-dkim.path', 'atrium-tls.timer'] : []),
    ]);
    // Restarted when its time changed, so the next run is computed from the new OnCalendar.
    runCommand([
      'systemctl',
      affected.has('atrium-backup.timer') ? 'restart' : 'start',
      'atrium-backup.timer',
    ]);
  } else {
    print(
      `PID 1 is not systemd: the services start through their init scripts, and cron runs the daily backup${o.mail ? ', copies DKIM keys and the mail certificate' : ''}.`,
    );
  }
  const listeners = expectedListeners(o, layout);
  const bring = async (service: string) => {
    const action = affected.has(service) ? 'restart' : 'start';
    if (action === 'start' && controlService(layout, service, 'status').ok) return;
    if (service === 'atrium' && action === 'restart' && supervisorRuns(layout)) {
      // New settings or a new release without a gap (on PostgreSQL): the supervisor replaces it.
      const replaced = await replaceServer(layout, 125_000);
      print(
        replaced.ok
          ? '✓ atrium: replaced by a server with the new files (the previous one drained)'
          : `✗ atrium: the new server did not become ready (${replaced.why}); see ${layout.logDir}/atrium.log`,
      );
      return;
    }
    const result = controlService(layout, service, action);
    if (!result.ok) {
      print(`✗ ${result.command}: ${result.output.split('\n').pop()}`);
      return;
    }
    // An init script's start-stop-daemon --background says 0 even when the daemon exits at once.
    // rspamd's first start compiles its regular expressions (hyperscan): up to a minute or two on
    // a small host before it listens; later starts load them from /var/lib/rspamd in seconds.
    const silent = await notListening(listeners[service] ?? [], service === 'rspamd' ? 180_000 : undefined);
    if (silent.length === 0) {
      print(`✓ ${result.command}`);
      return;
    }
    const log = serviceLogFile(service, layout);
    const said = log && lastErrorLine(log);
    print(
      `✗ ${result.command}: not listening on ${silent.map(describeListener).join(', ')}${said ? ` — ${said}` : ''}${log ? ` (${log})` : ''}`,
    );
  };
  await bring('atrium');
  if (o.mail) {
    if (waitUntilReady(o.ports.atrium)) {
      const sync = spawnSync(dkimSyncScript(layout), dkimSyncArgs(layout), { encoding: 'utf8' });
      print(
        `${sync.status === 0 ? '✓' : '✗'} DKIM keys copied for OpenDKIM${sync.status === 0 ? '' : `: ${sync.stderr.trim()}`}`,
      );
    } else {
      print(
        `✗ Atrium did not answer /api/ready within 60 s: see journalctl -u atrium (or ${layout.logDir}/atrium.log)`,
      );
    }
    if (systemd) runCommand(['systemctl', 'start', 'atrium-dkim.path']);
  }
  if (!systemd) await bring('cron');
  await bring(caddy);
  if (o.mail) {
    print(await copyMailCertificate(o, layout));
    if (systemd) runCommand(['systemctl', 'start', 'atrium-tls.timer']);
  }
  for (const daemon of mailDaemons) await bring(daemon);
}

/** How long install waits for Caddy's first certificate for MAIL_HOST (ACME takes seconds). */
const CERTIFICATE_WAIT_MS = 60_000;

/**
 * The mail daemons' certificate before they start: Caddy's for MAIL_HOST once it holds one (or
 * the operator's), else a self-signed stand-in that the sync replaces within a minute of Caddy
 * getting the real one.
 */
async function copyMailCertificate(o: InstallOptions, layout: HostLayout): Promise<string> {
  const { coversMailHost, syncArgs } = mailTls(o, layout);
  if (!coversMailHost) {
    const deadline = Date.now() + CERTIFICATE_WAIT_MS;
    while (!caddyHolds(layout, o.mailHost) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const sync = spawnSync(tlsSyncScript(layout), syncArgs, { encoding: 'utf8' });
  if (sync.status !== 0) return `✗ mail certificate for ${o.mailHost}: ${sync.stderr.trim()}`;
  return /stand-in/.test(sync.stdout)
    ? `✗ Caddy has no certificate for ${o.mailHost} yet: mail uses a self-signed stand-in until it has (every minute, ${tlsSyncScript(layout)}); see ${layout.caddyLog}`
    : `✓ mail certificate for ${o.mailHost} (${coversMailHost ? o.tls!.cert : "Caddy's"}) in ${layout.mailTlsDir}`;
}

/** Whether Caddy's storage holds a certificate for `host`, from any issuer. */
function caddyHolds(layout: HostLayout, host: string): boolean {
  try {
    return readdirSync(path.join(layout.caddyDataDir, 'certificates')).some((issuer) =>
      existsSync(path.join(layout.caddyDataDir, 'certificates', issuer, host, `${host}.crt`)),
    );
  } catch {
    return false;
  }
}

/** Which of the host's names the operator's certificate serves; Caddy obtains the others. */
function printCoverage(o: InstallOptions, print: (line: string) => void): void {
  const names = [o.publicUrl.hostname, ...(o.mail ? [o.mailHost] : []), `*.${o.siteBaseDomain}`];
  const covered = namesCovered(
    o.tls!.cert,
    names.map((n) => n.replace(/^\*\./, 'site.')),
  ).map((n) => n.replace(/^site\./, '*.'));
  const others = names.filter((n) => !covered.includes(n));
  print(
    `--tls-cert serves ${covered.length > 0 ? covered.join(', ') : 'none of this host’s names'}; ` +
      `${others.length > 0 ? `Caddy obtains certificates for ${others.join(', ')} and` : 'Caddy obtains certificates for'} organisations' own domains${o.internalTls ? ' from its own CA' : ''}.`,
  );
}

/** Polls Atrium's readiness probe (curl-free: a child node process would do the same). */
function waitUntilReady(port: number): boolean {
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const end = Date.now() + 60000;
       (async () => { while (Date.now() < end) { try { if ((await fetch('http://127.0.0.1:${port}/api/ready')).ok) process.exit(0); } catch {} await new Promise((r) => setTimeout(r, 500)); } process.exit(1); })();`,
    ],
    { encoding: 'utf8' },
  );
  return probe.status === 0;
}

function printDnsRecords(o: InstallOptions, print: (line: string) => void): void {
  const address =
    Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? "<this host's public IPv4 address>";
  const host = o.publicUrl.hostname;
  print('\nPublish these DNS records (then run: npm run atrium -- doctor):');
  print(`  ${host}.  A  ${address}`);
  if (o.siteBaseDomain !== host) print(`  ${o.siteBaseDomain}.  A  ${address}`);
  print(`  *.${o.siteBaseDomain}.  CNAME  ${host}.   (organisations' sites)`);
  if (o.mail) {
    if (o.mailHost !== host) print(`  ${o.mailHost}.  A  ${address}`);
    // Every domain's SPF record includes MAIL_HOST's: without this one the include is a permerror.
    const spf = mailHostSpfRecord(o.mailHost);
    print(
      `  ${spf.host}.  ${spf.type}  "${spf.value}"   (SPF: what each domain's include:${o.mailHost} reads)`,
    );
    print(
      `  Each organisation's MX, SPF, DKIM and DMARC records are on its Domains page once it adds a domain (MX ${o.mailHost}).`,
    );
    print(`  Reverse DNS (PTR) of ${address}: ${o.mailHost} — set at your hosting provider.`);
  }
}
