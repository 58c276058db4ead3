import { PageHeader } from '../../components/page-header.tsx';
import { MailAddresses } from '../../features/mail/components/mail-addresses.tsx';
import { MailDomains } from '../../features/mail/components/mail-domains.tsx';
import { Mailboxes } from '../../features/mail/components/mailboxes.tsx';
import { SpamProtection } from '../../features/mail/components/spam-protection.tsx';
import { MailPlanCard } from '../../features/subscriptions/components/mail-plan-card.tsx';

/**
 * Mail Settings (docs/mail.md): whether mail works for each domain and whether the mail
 * servers answer, the mail plan with each mailbox's usage, and the addresses (aliases, group
 * addresses, catch-alls), and spam protection with the sending limits.
 */
export default function MailSettingsPage() {
  return (
    <>
      <PageHeader
        title="Mail Settings"
        description="Whether mail works for each of your domains, your addresses, and your mail plan."
      />
      <div className="row g-4">
        <section className="col-12 col-xl-8" aria-label="Mail for your domains">
          <MailDomains />
        </section>
        <section className="col-12 col-xl-4" aria-label="Mail plan">
          <MailPlanCard />
          <Mailboxes />
        </section>
        <section className="col-12 col-xl-8" aria-label="Addresses">
          <MailAddresses />
        </section>
        <section className="col-12 col-xl-8" aria-label="Spam protection">
          <SpamProtection />
        </section>
      </div>
    </>
  );
}
