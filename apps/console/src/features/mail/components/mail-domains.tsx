import type { MailDomain } from '@atrium/contracts/mail-settings';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import { Link } from 'react-router';
import { CheckAgainButton } from '../../../components/check-again-button.tsx';
import { dateTime } from '../../../lib/format-time.ts';
import { paths } from '../../../lib/paths.ts';
import { QueryState } from '../../apps/components/query-state.tsx';
import { PURPOSE, STATUS } from '../../domains/components/mapping-labels.ts';
import { useMailDomains } from '../api/mail-domains.ts';
import { DkimKeys } from './dkim-keys.tsx';
import { MailServersStatus } from './mail-servers-status.tsx';

/** Whether mail works for each verified domain: its MX, SPF, DKIM and DMARC records in DNS. */
export function MailDomains() {
  const query = useMailDomains();
  if (!query.data) {
    return (
      <QueryState
        error={query.error}
        what="your domains' mail records"
        onRetry={() => void query.refetch()}
      />
    );
  }
  const { domains, mailConfigured, mailHost, checkedAt } = query.data;
  return (
    <>
      {mailConfigured ? null : (
        <Alert variant="info" data-testid="mail-not-set-up">
          <Alert.Heading as="h2" className="h6">
            Mail is not set up on this deployment
          </Alert.Heading>
          <p className="mb-0 small">
            Nothing receives mail for your domains yet. The records below are what each domain needs once
            whoever runs this Atrium server has set up its mail (the operator&apos;s install command does it):
            ask them to.
          </p>
        </Alert>
      )}
      <div className="d-flex flex-wrap align-items-center justify-content-between gap-2 mb-3">
        <p className="mb-0 text-body-secondary" aria-live="polite">
          Mail for your domains goes to <span className="text-break">{mailHost}</span> · looked up{' '}
          {dateTime(checkedAt)}
        </p>
        <CheckAgainButton checking={query.isFetching} onCheck={() => void query.refetch()} />
      </div>
      <MailServersStatus data={query.data} />
      {domains.length === 0 ? (
        <div className="card atrium-card">
          <div className="card-body">
            <p className="mb-2">Mail needs a verified domain.</p>
            <Link to={paths.addDomain()}>Add a domain</Link>
          </div>
        </div>
      ) : (
        <ul className="list-unstyled d-grid gap-3 mb-0" aria-label="Domains">
          {domains.map((item) => (
            <MailDomainCard key={item.domain.id} item={item} />
          ))}
        </ul>
      )}
    </>
  );
}

function MailDomainCard({ item }: { item: MailDomain }) {
  const { domain, records, ready, dkim } = item;
  const headingId = `mail-domain-${domain.id}`;
  return (
    <li className="card atrium-card" aria-labelledby={headingId}>
      <div className="card-body">
        <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
          <h2 id={headingId} className="h6 mb-0 text-break">
            {domain.displayName}
          </h2>
          {ready ? (
            <Badge bg="success">Mail records in place</Badge>
          ) : (
            <Badge bg="warning" text="dark">
              Records to publish
            </Badge>
          )}
        </div>
        <ul className="list-group list-group-flush mb-2" aria-label={`Mail records of ${domain.displayName}`}>
          {records.map((record) => {
            const status = STATUS[record.status];
            return (
              <li
                key={`${record.type} ${record.host}`}
                className="list-group-item px-0 d-flex align-items-start gap-3"
              >
                <div className="min-w-0 flex-grow-1">
                  <div className="fw-semibold">
                    {PURPOSE[record.purpose].title}
                    {/* During a key rotation two keys are published: the selector tells them apart. */}
                    {record.purpose === 'dkim' ? ` (${record.host.split('._domainkey.')[0]})` : null}
                  </div>
                  <div className="small text-body-secondary">{PURPOSE[record.purpose].why}</div>
                  {record.status === 'does_not_pass' ? (
                    <div className="small text-danger">{record.problem}</div>
                  ) : null}
                </div>
                <Badge bg={status.bg} {...(status.text ? { text: status.text } : {})}>
                  {status.label}
                </Badge>
              </li>
            );
          })}
        </ul>
        {ready ? null : (
          <Link to={paths.verifyDomain(domain.id)} className="small">
            The records to publish for {domain.displayName}
          </Link>
        )}
        <DkimKeys domainId={domain.id} domainName={domain.displayName} dkim={dkim} records={records} />
      </div>
    </li>
  );
}
