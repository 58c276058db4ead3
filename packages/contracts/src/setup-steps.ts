// Plain values, without zod, so pages that only show step titles do not load the schemas.

/**
 * The setup wizard's steps, in order; `finish` is the last page, not a step
 * that can be done or skipped.
 */
export const SETUP_STEPS = ['profile', 'domain', 'verify', 'users', 'apps'] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];
export const SETUP_PAGES = [...SETUP_STEPS, 'finish'] as const;
export type SetupPage = (typeof SETUP_PAGES)[number];

/** Steps that may be skipped: verify ("verify later") and add users. */
export const SKIPPABLE_STEPS: ReadonlySet<SetupStep> = new Set(['verify', 'users']);

export const SETUP_STEP_TITLES: Record<SetupPage, string> = {
  profile: 'Organization profile',
  domain: 'Add a domain',
  verify: 'Verify your domain',
  users: 'Add users',
  apps: 'Choose apps',
  finish: 'Finish',
};

/**
 * The checklist's mail steps (issue 42 item 2), after the wizard: judged from the data only, and
 * listed while mail is set up on the server and the organisation has a verified domain.
 * `mail_records`: every record of every verified domain was in place at its last look-up;
 * `mail_flowing`: a mailbox of the organisation has received its first message.
 */
export const MAIL_SETUP_STEPS = ['mail_records', 'mail_flowing'] as const;
export type MailSetupStep = (typeof MAIL_SETUP_STEPS)[number];

export const MAIL_SETUP_STEP_TITLES: Record<MailSetupStep, string> = {
  mail_records: 'Publish your mail records',
  mail_flowing: 'Mail is flowing',
};
