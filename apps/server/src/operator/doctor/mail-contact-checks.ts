import type { Db } from '../../db/database.ts';
import { mailServersLastAsked } from '../../modules/mail/lookups/mail-server-contacts.ts';
import { describeAge, fail, pass, type Check } from './check.ts';
import { serviceCommand } from './service-commands.ts';

/**
 * A mail host asks Atrium on every message (Postfix) and every login (Dovecot); a day without a
 * question means the daemon cannot reach Atrium or nobody uses it. Mail Settings warns after 15
 * minutes ("look"); the doctor, run by monitors, fails only after this long or when it never asked.
 */
const QUIET_LIMIT_MS = 24 * 60 * 60_000;

/** When Postfix and Dovecot last asked Atrium (docs/mail.md, "Whether the mail servers answer"). */
export function mailContactChecks(deps: { db: Db; root?: string }): Check[] {
  const root = deps.root ?? '/';
  const servers = [
    { kind: 'postfixLastAskedAt', label: 'Postfix', via: 'socketmap', service: 'postfix' },
    { kind: 'dovecotLastAskedAt', label: 'Dovecot', via: 'dict socket', service: 'dovecot' },
  ] as const;
  return servers.map((server) => ({
    name: `${server.label} asks Atrium`,
    async run() {
      const asked = (await mailServersLastAsked(deps.db))[server.kind];
      const fix = `check that ${server.label} reaches Atrium's ${server.via} (doctor's listening checks above), then ${serviceCommand(root, server.service, 'restart')}`;
      if (!asked) return fail(`${server.label} has never asked Atrium anything`, fix);
      const age = Date.now() - new Date(asked).getTime();
      const detail = `last asked ${describeAge(age)} ago`;
      return age > QUIET_LIMIT_MS ? fail(detail, fix) : pass(detail);
    },
  }));
}
