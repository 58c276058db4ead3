import { SectionCard } from '../../../components/section-card.tsx';
import { useMailPlan } from '../api/mail-plan.ts';
import { formatQuota, plural } from './format.ts';

/** The mail plan: the quota of each mailbox, and what they use where mail is set up. */
export function MailPlanCard() {
  const mailPlan = useMailPlan();
  const m = mailPlan.data;
  return (
    <SectionCard title="Mail plan" className="mb-4">
      {!m ? (
        <p className="text-body-secondary mb-0">
          {mailPlan.error ? 'The mail plan could not be loaded.' : 'Loading…'}
        </p>
      ) : (
        <>
          <dl className="row mb-2">
            <dt className="col-7 text-body-secondary fw-normal">Storage per mailbox</dt>
            <dd className="col-5 text-end fw-semibold">{formatQuota(m.quotaPerMailboxMb)}</dd>
            <dt className="col-7 text-body-secondary fw-normal">Mailboxes</dt>
            <dd className="col-5 text-end fw-semibold">{m.mailboxes}</dd>
            {m.usage ? (
              <>
                <dt className="col-7 text-body-secondary fw-normal">Used</dt>
                <dd className="col-5 text-end fw-semibold">
                  {formatQuota(m.usage.usedMb)} of {formatQuota(m.usage.quotaMb)}
                </dd>
              </>
            ) : null}
          </dl>
          <p className="small text-body-secondary mb-0">
            {m.mailConfigured
              ? `Each of the ${plural(m.mailboxes, 'mailbox')} may hold ${formatQuota(m.quotaPerMailboxMb)}.`
              : 'Mail is not set up on this server yet; usage shows here once it is.'}
          </p>
        </>
      )}
    </SectionCard>
  );
}
