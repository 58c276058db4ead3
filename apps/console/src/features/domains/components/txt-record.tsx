import type { DnsRecord } from '@atrium/contracts/domains';
import { CopyButton } from './copy-button.tsx';

/** The TXT record to publish: host, type and value, each with its own copy button. */
export function TxtRecord({ record, idPrefix }: { record: DnsRecord; idPrefix: string }) {
  const rows = [
    { key: 'host', label: 'Host (name)', value: record.host },
    { key: 'type', label: 'Type', value: record.type },
    { key: 'value', label: 'Value', value: record.value },
  ];
  return (
    <div className="atrium-dns-record">
      {rows.map((row) => (
        <div key={row.key} className="mb-3">
          <label htmlFor={`${idPrefix}-${row.key}`} className="form-label small fw-semibold mb-1">
            {row.label}
          </label>
          <div className="input-group">
            <input
              id={`${idPrefix}-${row.key}`}
              className="form-control font-monospace"
              value={row.value}
              readOnly
              onFocus={(event) => event.currentTarget.select()}
            />
            <CopyButton value={row.value} what={`TXT record ${row.key}`} />
          </div>
        </div>
      ))}
    </div>
  );
}
