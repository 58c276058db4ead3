import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import Alert from 'react-bootstrap/Alert';
import { dateTime, timeAgo } from '../../../lib/format-time.ts';

/** Longer than this without a request from a server means it is not reaching Atrium. */
const QUIET_MS = 15 * 60_000;

const SERVERS = [
  { key: 'postfixLastAskedAt', name: 'Postfix', role: 'receives and sends mail' },
  { key: 'dovecotLastAskedAt', name: 'Dovecot', role: 'stores mailboxes and signs mail apps in' },
] as const;

/**
 * Whether the mail servers answer: when Postfix and Dovecot last asked Atrium anything (Atrium
 * records it at most once a minute). A server that has been quiet for 15 minutes, or never
 * asked, is a warning once mail is set up: every delivery and sign-in asks Atrium first.
 */
export function MailServersStatus({ data, now = Date.now() }: { data: MailDomainsResponse; now?: number }) {
  if (!data.mailConfigured) return null;
  const quiet = SERVERS.filter(({ key }) => {
    const at = data.mailServers[key];
    return at === null || now - Date.parse(at) > QUIET_MS;
  });
  return (
    <div className="mb-3" data-testid="mail-servers">
      <ul className="list-unstyled small mb-2">
        {SERVERS.map(({ key, name }) => {
          const at = data.mailServers[key];
          return (
            <li key={key}>
              {at ? (
                <>
                  {name} last asked Atrium{' '}
                  <time dateTime={at} title={dateTime(at)}>
                    {timeAgo(at, now)}
                  </time>
                </>
              ) : (
                `${name} has not asked Atrium anything yet`
              )}
            </li>
          );
        })}
      </ul>
      {quiet.length > 0 ? (
        <Alert variant="warning" className="small mb-0">
          {quiet.map(({ name, role }) => (
            <p key={name} className="mb-1">
              {name} ({role}) has not asked Atrium for over 15 minutes. Mail may not be arriving: check that
              it is running and can reach Atrium&apos;s{' '}
              {name === 'Postfix' ? 'socketmap address' : 'dict socket'}.
            </p>
          ))}
        </Alert>
      ) : null}
    </div>
  );
}
