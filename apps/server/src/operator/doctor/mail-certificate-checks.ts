import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chown, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { fail, pass, warn, type Check, type CheckResult } from './check.ts';
import { ownerAndMode } from './file-access.ts';
import { dovecotListeners, postfixListeners, type Listener } from './mail-daemon-files.ts';
import { servedCertificate, type Served, type TlsStart } from './served-certificate.ts';
import { serviceCommand } from './service-commands.ts';
import {
  MAIL_CERTIFICATE_SEEN_FILE,
  recordMailCertificateSeen,
} from '../../modules/mta-sts/mail-certificate-seen.ts';

const DAY_MS = 24 * 60 * 60_000;
/** Fewer days left fail: the copy follows Caddy's renewal (at 30 days left), so this means it is stuck. */
const MIN_DAYS_LEFT = 7;
/** Fewer days left warn: renewal is late. */
const WARN_DAYS_LEFT = 14;

/**
 * What copies the certificate to Postfix and Dovecot: the command of install's cron line
 * (/etc/cron.d/atrium-tls) where there is one, else install, which makes the copies and the line.
 */
export async function tlsSyncCommand(layout: HostLayout): Promise<string> {
  const install = `sudo npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`}`;
  const text = await readFile(path.join(layout.cronDir, 'atrium-tls'), 'utf8').catch(() => '');
  const line = text.split('\n').find((l) => /^[\d*@]/.test(l));
  if (!line) return install;
  const fields = line.startsWith('@') ? 2 : 6;
  return line
    .split(/\s+/)
    .slice(fields)
    .join(' ')
    .replace(/\s*>\s*\/dev\/null(\s+2>&1)?$/, '');
}

/** Each daemon's listener that serves the certificate, and how TLS starts there. */
function tlsListeners(layout: HostLayout): Array<{ daemon: string; listener: Listener; start: TlsStart }> {
  const found: Array<{ daemon: string; listener: Listener; start: TlsStart }> = [];
  const dovecot = dovecotListeners(layout.dovecotDir);
  const imaps = dovecot.find((l) => l.label === 'dovecot imaps');
  const imap = dovecot.find((l) => l.label === 'dovecot imap');
  if (imaps) found.push({ daemon: 'Dovecot', listener: imaps, start: 'implicit' });
  else if (imap) found.push({ daemon: 'Dovecot', listener: imap, start: 'imap' });
  const postfix = postfixListeners(layout.postfixDir);
  const implicit = postfix.find((l) => l.label === 'postfix submissions' || l.label === 'postfix smtps');
  const submission = postfix.find((l) => l.label === 'postfix submission');
  if (implicit) found.push({ daemon: 'Postfix', listener: implicit, start: 'implicit' });
  else if (submission) found.push({ daemon: 'Postfix', listener: submission, start: 'smtp' });
  return found;
}

function reloadCommand(layout: HostLayout, daemon: string): string {
  if (layout.root === '/') return serviceCommand('/', daemon.toLowerCase(), 'reload');
  return daemon === 'Dovecot'
    ? `doveadm -c ${path.join(layout.dovecotDir, 'dovecot.conf')} reload`
    : `postfix -c ${layout.postfixDir} reload`;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The certificate Postfix and Dovecot serve for MAIL_HOST (the copy atrium-tls-sync makes of
 * Caddy's or the operator's): there, valid for MAIL_HOST, not about to expire, its key root's
 * 0600 and matching, and what the daemons serve right now the same certificate (a copy that was
 * renewed but not reloaded is not).
 */
export function mailCertificateChecks(layout: HostLayout, mailHost: string, dataDir: string): Check[] {
  return [{ name: 'Mail certificate', run: () => mailCertificate(layout, mailHost, dataDir) }];
}

async function mailCertificate(layout: HostLayout, mailHost: string, dataDir: string): Promise<CheckResult> {
  const sync = await tlsSyncCommand(layout);
  const [certPem, keyPem, keyStat] = await Promise.all([
    readFile(layout.mailCert, 'utf8').catch(() => undefined),
    readFile(layout.mailKey, 'utf8').catch(() => undefined),
    stat(layout.mailKey).catch(() => undefined),
  ]);
  if (certPem === undefined || keyPem === undefined || !keyStat) {
    const missing = [certPem === undefined ? layout.mailCert : '', keyStat ? '' : layout.mailKey]
      .filter(Boolean)
      .join(' and ');
    return fail(
      `${missing || layout.mailKey} missing: Postfix and Dovecot have no certificate for ${mailHost} (installed before they served Caddy's)`,
      `sudo npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`}`,
    );
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (error) {
    return fail(`${layout.mailCert} is not a certificate (${(error as Error).message})`, sync);
  }
  if (!cert.checkHost(mailHost)) {
    return fail(
      `${layout.mailCert} is not valid for ${mailHost} (${cert.subjectAltName ?? cert.subject})`,
      sync,
    );
  }
  const expires = new Date(cert.validTo);
  const daysLeft = Math.floor((expires.getTime() - Date.now()) / DAY_MS);
  const validity = `valid for ${mailHost} ${daysLeft < 0 ? `expired ${-daysLeft} days ago` : `for ${daysLeft} more days`} (until ${day(expires)})`;
  if (daysLeft < MIN_DAYS_LEFT) return fail(`${layout.mailCert} ${validity}`, sync);
  if ((keyStat.mode & 0o7777) !== 0o600 || keyStat.uid !== 0) {
    return fail(
      `${layout.mailKey} is ${ownerAndMode(keyStat)}, expected root's 0600`,
      `chown root:root ${layout.mailKey} && chmod 0600 ${layout.mailKey}`,
    );
  }
  let matches = false;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    matches = false;
  }
  if (!matches) return fail(`${layout.mailKey} is not the key of ${layout.mailCert}`, sync);

  const served = await Promise.all(
    tlsListeners(layout).map(async (t) => ({
      ...t,
      served: await servedCertificate({
        host: t.listener.host,
        port: t.listener.port,
        start: t.start,
        servername: mailHost,
      }),
    })),
  );
  const stale = served.filter((s) => s.served.ok && s.served.fingerprint256 !== cert.fingerprint256);
  const noTls = served.filter((s) => !s.served.ok && s.served.reason === 'no-tls');
  const where = (s: (typeof served)[number]) =>
    `${s.daemon} (${s.listener.label.split(' ')[1]} ${s.listener.host}:${s.listener.port})`;
  if (noTls.length > 0) {
    return fail(
      `${noTls.map((s) => `${where(s)} offers no TLS (${s.served.ok ? '' : s.served.detail})`).join('; ')}`,
      `sudo npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`}`,
    );
  }
  if (stale.length > 0) {
    return fail(
      `${stale
        .map(
          (s) =>
            `${where(s)} serves another certificate${s.served.ok ? ` (until ${day(new Date(s.served.validTo))})` : ''}`,
        )
        .join('; ')} than ${layout.mailCert} (until ${day(expires)}): renewed but not reloaded`,
      stale.map((s) => reloadCommand(layout, s.daemon)).join('; '),
    );
  }
  const compared = served.filter((s) => s.served.ok).map((s) => s.daemon);
  const silent = served.filter((s) => !s.served.ok).map((s) => s.daemon);
  const detail = [
    `${layout.mailCert} ${validity}`,
    compared.length > 0 ? `served by ${compared.join(' and ')}` : '',
    silent.length > 0
      ? `not compared with ${silent.join(' and ')} (not answering: see its listening check)`
      : '',
    await mtaStsFact(served, { mailHost, dataDir, validTo: expires }),
  ]
    .filter(Boolean)
    .join('; ');
  if (daysLeft < WARN_DAYS_LEFT) return warn(`${detail}; renewal is late`, sync);
  return pass(detail);
}

/**
 * MTA-STS moves from `testing` to `enforce` once this check has seen every daemon serve a
 * certificate the system's roots trust for MAIL_HOST (what a sending server verifies): the fact
 * goes to DATA_DIR for Atrium to read (mta-sts/mail-certificate-seen.ts), owned like DATA_DIR.
 */
async function mtaStsFact(
  served: Array<{ daemon: string; served: Served }>,
  o: { mailHost: string; dataDir: string; validTo: Date },
): Promise<string> {
  const untrusted = served.flatMap((s) =>
    s.served.ok && !s.served.trusted ? [`${s.daemon}: ${s.served.untrustedBecause}`] : [],
  );
  const file = path.join(o.dataDir, MAIL_CERTIFICATE_SEEN_FILE);
  if (untrusted.length > 0) {
    // A certificate senders cannot verify now: back to testing before they refuse to deliver.
    await rm(file, { force: true }).catch(() => undefined);
    return `MTA-STS in testing: not trusted by the system's roots (${untrusted.join('; ')})`;
  }
  if (served.length === 0 || !served.every((s) => s.served.ok)) {
    return 'MTA-STS unchanged: not every daemon was seen serving it';
  }
  try {
    await recordMailCertificateSeen(o.dataDir, {
      mailHost: o.mailHost,
      seenAt: new Date().toISOString(),
      validTo: o.validTo.toISOString(),
    });
    const owner = await stat(o.dataDir);
    await chown(file, owner.uid, owner.gid);
  } catch (error) {
    return `MTA-STS unchanged: ${file} not written (${(error as Error).message})`;
  }
  return "MTA-STS in enforce: trusted by the system's roots";
}
