import { PageHeader } from '../../components/page-header.tsx';
import { MailDomains } from '../../features/mail/components/mail-domains.tsx';
import { MailPlanCard } from '../../features/subscriptions/components/mail-plan-card.tsx';

/** Mail Settings (PRODUCT.md §4.10): whether mail works for each domain, and the mail plan. */
export default function MailSettingsPage() {
  return (
    <>
      <PageHeader
        title="Mail Settings"
        description="Whether mail works for each of your domains, and your mail plan."
      />
      <div className="row g-4">
        <section className="col-12 col-xl-8" aria-label="Mail for your domains">
          <MailDomains />
        </section>
        <div className="col-12 col-xl-4">
          <MailPlanCard />
        </div>
      </div>
    </>
  );
}
