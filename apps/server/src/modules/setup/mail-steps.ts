import type { MailSetupStepState } from '@atrium/contracts/dashboard';
import type { Db } from '../../db/database.ts';
import { displayDomainName } from '../domains/domain-name.ts';
import { findMailStepFacts, type MailStepFacts } from './mail-steps.repository.ts';

type Domain = MailStepFacts['domains'][number];

/** What is still to publish for one domain at its last look-up; null when every record was in place. */
function missingOf(domain: Domain): string | null {
  const shown = displayDomainName(domain.name);
  if (domain.recordsCheckedAt === null || domain.recordsTotal === null || domain.recordsOk === null) {
    return `The records of ${shown} have not been checked yet`;
  }
  const missing = domain.recordsTotal - domain.recordsOk;
  if (missing <= 0) return null;
  return `${missing} of ${domain.recordsTotal} records ${missing === 1 ? 'is' : 'are'} not published yet for ${shown}`;
}

/** The two mail steps from the stored facts (exported for its unit test). */
export function mailStepsOf(facts: MailStepFacts): MailSetupStepState[] {
  if (facts.domains.length === 0) return [];
  const open = facts.domains
    .map((domain) => ({ domain, missing: missingOf(domain) }))
    .filter((entry): entry is { domain: Domain; missing: string } => entry.missing !== null);
  const names = facts.domains.map((domain) => displayDomainName(domain.name)).join(', ');
  const records: MailSetupStepState = {
    step: 'mail_records',
    done: open.length === 0,
    detail:
      open.length === 0
        ? `Every record is in place for ${names}.`
        : `${open.map((entry) => entry.missing).join('; ')}.`,
    domainId: open[0]?.domain.id ?? null,
  };
  const flowing: MailSetupStepState = {
    step: 'mail_flowing',
    done: facts.mailFirstReceivedAt !== null,
    detail:
      facts.mailFirstReceivedAt !== null
        ? 'Your first message has arrived.'
        : 'No message has arrived yet. Once your records are published, send one to your address from another provider.',
    domainId: null,
  };
  return [records, flowing];
}

/**
 * The checklist's mail steps (issue 42 item 2). They apply while mail is set up on the server
 * (Postfix and Dovecot ask Atrium: mailIsConfigured) and the organisation has a verified domain;
 * otherwise there is nothing to publish and no mail to wait for, and the list is empty.
 */
export async function getMailSteps(
  db: Db,
  organizationId: string,
  mailConfigured: boolean,
): Promise<MailSetupStepState[]> {
  if (!mailConfigured) return [];
  return mailStepsOf(await findMailStepFacts(db, organizationId));
}
