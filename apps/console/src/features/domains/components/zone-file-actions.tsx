import './zone-file-actions.css';
import { zoneFileName } from '@atrium/contracts/domains';
import { Copy, Download } from 'lucide-react';
import { useZoneFile, zoneFileUrl } from '../api/zone-file.ts';
import { CopyButton } from './copy-button.tsx';

/**
 * Every record at once: the zone file to download (many DNS hosts import one) or to copy as one
 * block, and the block itself to read or select by hand.
 */
export function ZoneFileActions({ domainId, domainName }: { domainId: string; domainName: string }) {
  const zone = useZoneFile(domainId);
  return (
    <div className="mb-3" role="group" aria-label="All records at once">
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <a
          href={zoneFileUrl(domainId)}
          download={zoneFileName(domainName)}
          className="btn btn-sm btn-outline-primary d-inline-flex align-items-center gap-1"
        >
          <Download size={16} aria-hidden="true" />
          Download zone file
        </a>
        {zone.data ? (
          <CopyButton value={zone.data} what="all records as a zone file" label="Copy all" />
        ) : (
          <button
            type="button"
            className="btn btn-sm btn-outline-secondary d-inline-flex align-items-center gap-1"
            aria-label="Copy all records as a zone file"
            disabled
          >
            <Copy size={16} aria-hidden="true" />
            Copy all
          </button>
        )}
      </div>
      <p className="small text-body-secondary mb-1">
        Many DNS hosts import a zone file (BIND format) in one step; others take the records one by one as
        listed below.
      </p>
      {zone.error ? (
        <p className="small text-danger mb-0" role="alert">
          The zone file could not be loaded: {zone.error.message}
        </p>
      ) : zone.data ? (
        <details className="small">
          <summary>Show the records as a zone file</summary>
          <pre
            className="atrium-zone-file border rounded p-2 mt-2 mb-0"
            role="region"
            aria-label="Zone file"
            tabIndex={0}
          >
            {zone.data}
          </pre>
        </details>
      ) : null}
    </div>
  );
}
