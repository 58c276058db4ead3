import { imapSignIn, inboxSubjects } from '../../../server/test/mail/mail-world.ts';
import { signInAs, type TestUser } from '../../../server/test/support/fixtures.ts';
import { expect, type Atrium } from './fixtures.ts';

// Mail of a file that said `test.use({ atriumMail: true })`: Debian's Postfix and Dovecot beside
// its Atrium (fixtures.ts), reached as a user's devices reach them.

/** The user makes an app password on their profile, as Set up a device does; its secret. */
export async function appPassword(atrium: Atrium, user: TestUser, name: string): Promise<string> {
  const session = await signInAs(atrium.db, user);
  const created = await atrium.app.inject({
    method: 'POST',
    url: '/api/profile/app-passwords',
    headers: session.headers,
    payload: { name },
  });
  expect(created.statusCode, created.body).toBe(201);
  return (created.json() as { password: string }).password;
}

/** Whether Dovecot lets the device sign in over IMAP with its app password (the INBOX read). */
export async function imapSignsIn(atrium: Atrium, user: TestUser, pass: string): Promise<boolean> {
  const imap = await imapSignIn({ mail: atrium.mail! }, { user: user.email, pass }).catch(
    (error: unknown) => {
      // ImapFlow's refused LOGIN: Dovecot answered NO [AUTHENTICATIONFAILED].
      if ((error as { authenticationFailed?: boolean }).authenticationFailed) return null;
      throw error;
    },
  );
  if (!imap) return false;
  try {
    await inboxSubjects(imap);
    return true;
  } finally {
    await imap.logout();
  }
}
