import type { Db } from '../../db/database.ts';
import { mailServersLastAsked } from '../../modules/mail/lookups/mail-server-contacts.ts';
import { describeAge, fail, pass, warn, type Check } from './check.ts';
import { serviceCommand } from './service-commands.ts';

/**
 * A mail host asks Atrium on every message (Postfix) and every login (Dovecot); a day without a
 * question means the daemon cannot reach Atrium or nobody uses it. Mail Settings warns after 15
 * minutes ("look"); the doctor, run by monitors, fails only after this long, and only warns while
 * it never asked (a fresh host).
 */
const QUIET_LIMIT_MS = 24 * 60 * 60_000;

/** When Postfix and Dovecot last asked Atrium (docs/mail.md, "Whether the mail servers answer"). */
export function mailContactChecks(deps: { db: Db; root?: string }): Check[] {
  const root = deps.root ?? '/';
  const servers = [
    {
      kind: 'postfixLastAskedAt',
      label: 'Postfix',
      via: 'socketmap',
      service: 'postfix',
      first: 'message received or sent',
      tryIt: 'send a message to one of your users',
    },
    {
      kind: 'dovecotLastAskedAt',
      label: 'Dovecot',
      via: 'dict socket',
      service: 'dovecot',
      first: 'sign-in to a mailbox',
      tryIt: 'sign in to a mailbox (webmail, or a mail app with an app password)',
    },
  ] as const;
  return servers.map((server) => ({
    name: `${server.label} asks Atrium`,
    async run() {
      const asked = (await mailServersLastAsked(deps.db))[server.kind];
      const fix = `check that ${server.label} reaches Atrium's ${server.via} (doctor's listening checks above), then ${serviceCommand(root, server.service, 'restart')}`;
      // A fresh host: no message and no sign-in yet, which is no fault (and restarting mends nothing).
      if (!asked) {
        return warn(
          `${server.label} has not asked Atrium anything yet: no ${server.first} so far`,
          `${server.tryIt}; if this stays, ${fix}`,
        );
      }
      const age = Date.now() - new Date(asked).getTime();
      const detail = `last asked ${describeAge(age)} ago`;
      return age > QUIET_LIMIT_MS ? fail(detail, fix) : pass(detail);
    },
  }));
}
