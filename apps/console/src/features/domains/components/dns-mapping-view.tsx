import type { DnsMappingRecord } from '@atrium/contracts/domains';
import Badge from 'react-bootstrap/Badge';
import { CheckAgainButton } from '../../../components/check-again-button.tsx';
import { QueryState } from '../../apps/components/query-state.tsx';
import { useDnsMapping } from '../api/dns-mapping.ts';
import { CopyButton } from './copy-button.tsx';
import { formatDateTime } from './format.ts';
import { PURPOSE, STATUS } from './mapping-labels.ts';
import { ZoneFileActions } from './zone-file-actions.tsx';

/** Expected against found for every record of the DNS mapping, each with its status. */
export function DnsMappingView({ domainId }: { domainId: string }) {
  const mapping = useDnsMapping(domainId, true);
  if (!mapping.data) {
    return <QueryState error={mapping.error} what="the DNS mapping" onRetry={() => void mapping.refetch()} />;
  }
  const { records, checkedAt } = mapping.data;
  const okCount = records.filter((r) => r.status === 'ok').length;
  return (
    <div>
      <div className="d-flex flex-wrap align-items-center justify-content-between gap-2 mb-3">
        <p className="mb-0 text-body-secondary" aria-live="polite">
          {okCount} of {records.length} records in place · looked up {formatDateTime(checkedAt)}
        </p>
        <CheckAgainButton
          checking={mapping.isFetching}
          onCheck={() => void mapping.refetch()}
          label="Check all records now"
        />
      </div>
      <ZoneFileActions domainId={domainId} domainName={mapping.data.domain.name} />
      <ul className="list-unstyled mb-0 d-grid gap-3" aria-label="DNS records">
        {records.map((record) => (
          <MappingRecord key={`${record.type} ${record.host}`} record={record} />
        ))}
      </ul>
    </div>
  );
}

function MappingRecord({ record }: { record: DnsMappingRecord }) {
  const purpose = PURPOSE[record.purpose];
  const status = STATUS[record.status];
  const id = recordDomId(record);
  // Why a published record still fails (SPF that does not evaluate); a failed lookup says so in Found.
  const showsCheck = Boolean(record.problem) && record.status !== 'lookup_failed';
  // Longer than one TXT string (the DKIM key): shown whole, with what to do if a DNS host refuses it.
  const long = record.valueStrings.length > 1;
  return (
    <li className="card atrium-card" aria-labelledby={`${id}-title`} data-status={record.status}>
      <div className="card-body">
        <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
          <h3 id={`${id}-title`} className="h6 mb-0">
            {purpose.title}
          </h3>
          <Badge bg={status.bg} {...(status.text ? { text: status.text } : {})}>
            {status.label}
          </Badge>
        </div>
        <p className="small text-body-secondary mb-3">{purpose.why}</p>
        <dl className="row mb-0 small atrium-dns-fields">
          <dt className="col-sm-3">Host</dt>
          <dd className="col-sm-9 d-flex align-items-start gap-2">
            <code className="text-break flex-grow-1">{record.host}</code>
            <CopyButton value={record.host} what={`${purpose.title} host`} />
          </dd>
          <dt className="col-sm-3">Type</dt>
          <dd className="col-sm-9">
            <code>{record.type}</code>
          </dd>
          <dt className="col-sm-3">Expected</dt>
          <dd className="col-sm-9 d-flex align-items-start gap-2">
            <div className="flex-grow-1 text-break">
              <code aria-describedby={long ? `${id}-long-note` : undefined}>{record.value}</code>
              {long ? (
                <p className="text-body-secondary mt-1 mb-0" id={`${id}-long-note`}>
                  Some DNS hosts limit a text value to 255 characters: paste it whole; if yours refuses, split
                  it into quoted strings of 255 characters at most (the zone file does this for you).
                </p>
              ) : null}
            </div>
            <CopyButton value={record.value} what={`${purpose.title} value`} />
          </dd>
          {record.type === 'SRV' ? <SrvFields value={record.value} /> : null}
          <dt className="col-sm-3">Found</dt>
          <dd className={showsCheck ? 'col-sm-9' : 'col-sm-9 mb-0'}>
            {record.status === 'lookup_failed' ? (
              <span className="text-danger">{record.problem}</span>
            ) : record.found.length === 0 ? (
              <span className="text-body-secondary">Nothing published yet</span>
            ) : (
              <ul className="list-unstyled mb-0">
                {record.found.map((value, index) => (
                  <li key={index}>
                    <code className="text-break">{value}</code>
                  </li>
                ))}
              </ul>
            )}
          </dd>
          {showsCheck ? <CheckProblem record={record} /> : null}
        </dl>
      </div>
    </li>
  );
}

/**
 * Why a published record is not in place (SPF: what a receiver's check gives mail from the mail
 * host), and the other host's record that mends it, to copy or pass on to the mail service's
 * operator.
 */
function CheckProblem({ record }: { record: DnsMappingRecord }) {
  const title = PURPOSE[record.purpose].title;
  return (
    <>
      <dt className="col-sm-3">Check</dt>
      <dd className="col-sm-9">
        <span className="text-danger">{record.problem}</span>
      </dd>
      {record.fix ? (
        <>
          <dt className="col-sm-3">Publish at {record.fix.host}</dt>
          <dd className="col-sm-9 d-flex align-items-start gap-2">
            <code className="text-break flex-grow-1">
              {record.fix.host} {record.fix.type} &quot;{record.fix.value}&quot;
            </code>
            <CopyButton value={record.fix.value} what={`${title} record of ${record.fix.host}`} />
          </dd>
        </>
      ) : null}
    </>
  );
}

/** During a DKIM key rotation two DKIM records are listed: the host tells them apart. */
const recordDomId = (record: DnsMappingRecord) =>
  `dns-${record.purpose}-${record.host.replace(/[^a-z0-9-]/gi, '-')}`;

/** DNS panels ask for an SRV record's four parts in separate fields. */
function SrvFields({ value }: { value: string }) {
  const [priority, weight, port, target] = value.split(' ');
  return (
    <>
      <dt className="col-sm-3">As fields</dt>
      <dd className="col-sm-9">
        Priority <code>{priority}</code> · Weight <code>{weight}</code> · Port <code>{port}</code> · Target{' '}
        <code className="text-break">{target}</code>
      </dd>
    </>
  );
}
