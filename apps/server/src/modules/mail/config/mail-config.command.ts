import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { asOperatorProblem } from '../../../operator/operator-problem.ts';
import type { Config } from '../../../config.ts';
import { mailClient } from '../mail-client.ts';
import { isSecretFile, mailConfigFiles, type MailConfigOptions } from './mail-config.ts';
import { masterPassword } from './mail-master-user.ts';
import { rspamdControllerPassword } from './rspamd-config.ts';
import { rspamdMapToken } from '../../mail-protection/rspamd-maps.ts';

/** A wrong argument or a missing setting: the CLI prints the message as a usage error. */
export class MailConfigProblem extends Error {}

const PORTS = {
  smtp: 25,
  submission: 587,
  imap: 143,
  lmtp: 24,
  auth: 12345,
  dkim: 8891,
  quotaStatus: 12340,
  // rspamd's milter and controller (Debian's defaults) and the Redis it keeps its data in.
  rspamd: 11332,
  rspamdController: 11334,
  redis: 6379,
} as const;

/** `quotaStatus` → `--quota-status-port`. */
const portOption = (name: string) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-port`;

/**
 * `npm run atrium -- mail-config --out DIR`: writes postfix/main.cf, postfix/master.cf and the
 * Dovecot files for this deployment into DIR (docs/mail.md says where each goes). The files
 * holding Dovecot's client secret are written 0600. Everything comes from the settings (secrets
 * derived from ATRIUM_SECRET): it never opens the database, which the running server may hold.
 */
export function mailConfigCommand(args: string[], loadConfig: () => Config): void {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: 'string' },
      listen: { type: 'string', default: 'all' },
      'atrium-url': { type: 'string' },
      'dovecot-dir': { type: 'string', default: '/etc/dovecot' },
      'mail-root': { type: 'string', default: '/var/vmail' },
      'mail-user': { type: 'string', default: 'vmail' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'no-rspamd': { type: 'boolean' },
      ...Object.fromEntries(
        Object.keys(PORTS).map((name) => [portOption(name), { type: 'string' as const }]),
      ),
    },
    strict: true,
  });
  if (!values.out) throw new MailConfigProblem('--out is required: the directory to write the files into');
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) {
    throw new MailConfigProblem('--tls-cert and --tls-key go together');
  }
  const ports = { ...PORTS } as Record<keyof typeof PORTS, number>;
  for (const name of Object.keys(PORTS) as Array<keyof typeof PORTS>) {
    const given = (values as Record<string, unknown>)[portOption(name)] as string | undefined;
    if (given === undefined) continue;
    const port = Number(given);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new MailConfigProblem(`--${portOption(name)}: expected a port number 1-65535`);
    }
    ports[name] = port;
  }
  for (const dir of ['dovecot-dir', 'mail-root'] as const) {
    if (!path.isAbsolute(values[dir])) throw new MailConfigProblem(`--${dir}: expected an absolute path`);
  }

  const config = loadConfig();
  const { socketmap, dictSocket, dkimDir, opendkimDir } = config.mail;
  if (!socketmap) throw new MailConfigProblem('Set MAIL_SOCKETMAP_ADDRESS (e.g. 127.0.0.1:10027) first');
  if (!dictSocket) throw new MailConfigProblem('Set MAIL_DICT_SOCKET (e.g. /run/atrium/dict.sock) first');
  const options: MailConfigOptions = {
    hostname: config.mailHost,
    atriumUrl: values['atrium-url'] ?? `http://127.0.0.1:${config.port}`,
    socketmap,
    dictSocket,
    // The server registers the same credentials at its next start (ensureMailClient).
    client: mailClient(config),
    masterPassword: masterPassword(config.secret),
    // Sending limits (MAIL_POLICY_ADDRESS) and the token of rspamd's policy maps (issue 44).
    policy: config.mail.policy,
    rspamdMapToken: rspamdMapToken(config.secret),
    listen: values.listen,
    ports,
    mailRoot: values['mail-root'],
    mailUser: values['mail-user'],
    tls: values['tls-cert'] ? { cert: values['tls-cert'], key: values['tls-key']! } : undefined,
    // Signing needs the tables Atrium writes; OpenDKIM reads the copies in MAIL_DKIM_OPENDKIM_DIR,
    // the setting the KeyTable's key paths come from too, so the two cannot disagree.
    dkim: dkimDir ? { port: ports.dkim, dir: opendkimDir ?? dkimDir } : undefined,
    // rspamd in front of delivery and submission (docs/mail.md, "Spam and forgery protection").
    rspamd: values['no-rspamd']
      ? undefined
      : {
          port: ports.rspamd,
          controllerPort: ports.rspamdController,
          redis: { host: '127.0.0.1', port: ports.redis },
          controllerPassword: rspamdControllerPassword(config.secret),
        },
  };
  for (const [name, text] of Object.entries(mailConfigFiles(options, values['dovecot-dir']))) {
    const file = path.join(values.out, name);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      // Postfix's unprivileged commands read main.cf; only root reads the files with the secret.
      chmodSync(file, isSecretFile(name) ? 0o600 : 0o644);
    } catch (error) {
      const problem = asOperatorProblem(
        error,
        '--out',
        `choose a directory this user (${userInfo().username}) may write`,
      );
      throw problem instanceof Error && problem !== error ? new MailConfigProblem(problem.message) : error;
    }
    console.log(`Wrote ${file}`);
  }
  if (!options.dkim)
    console.log('MAIL_DKIM_DIR is not set: no OpenDKIM configuration, mail leaves unsigned.');
  else if (options.dkim.dir === dkimDir) {
    console.log(
      'MAIL_DKIM_OPENDKIM_DIR is not set: OpenDKIM reads MAIL_DKIM_DIR itself, which its RequireSafeKeys ' +
        'refuses unless root or opendkim owns it; set it and run deploy/atrium-dkim-sync (docs/mail.md).',
    );
  }
  console.log('Install them as docs/mail.md says, then reload Postfix, Dovecot, OpenDKIM and rspamd.');
}
