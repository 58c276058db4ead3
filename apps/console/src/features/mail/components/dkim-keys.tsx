import type { DnsMappingRecord } from '@atrium/contracts/domains';
import type { DkimState } from '@atrium/contracts/mail-dkim';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { dateTime } from '../../../lib/format-time.ts';
import { useDkimStep, type DkimStep } from '../api/dkim-keys.ts';

type Confirmed = Exclude<DkimStep, 'create'>;

/**
 * The domain's DKIM keys on Mail Settings, and the rotation: make a new key (published beside the
 * current one), switch signing to it once its record is in DNS, then retire the old one.
 */
export function DkimKeys({
  domainId,
  domainName,
  dkim,
  records,
}: {
  domainId: string;
  domainName: string;
  dkim: DkimState;
  /** The domain's mail records as DNS holds them now: is the new key's record there yet? */
  records: DnsMappingRecord[];
}) {
  const step = useDkimStep();
  const [confirming, setConfirming] = useState<Confirmed | null>(null);
  const headingId = `dkim-${domainId}`;
  const run = (which: DkimStep) =>
    step.mutate({ domainId, step: which }, { onSuccess: () => setConfirming(null) });
  const dialog = confirming ? dialogText(confirming, dkim, domainName) : null;
  const nextRecord = dkim.next
    ? records.find((r) => r.purpose === 'dkim' && r.host.startsWith(`${dkim.next?.selector}._domainkey.`))
    : undefined;
  const nextPublished = nextRecord?.status === 'ok';

  return (
    <section className="border-top pt-3 mt-2" aria-labelledby={headingId}>
      <h3 id={headingId} className="h6 fw-semibold">
        DKIM signing
      </h3>
      <p className="mb-2">
        Mail from {domainName} is signed with the key <code>{dkim.selector}</code>.
      </p>
      {dkim.next ? (
        <p className="mb-2 small">
          New key <code>{dkim.next.selector}</code>, made {dateTime(dkim.next.createdAt)}: publish its DKIM
          record (listed above), then switch to it.
        </p>
      ) : null}
      {dkim.previous ? (
        <p className="mb-2 small">
          The old key <code>{dkim.previous.selector}</code> is still published (since{' '}
          {dateTime(dkim.previous.switchedAt)}), so mail signed with it and still on its way verifies. Retire
          it after a few days.
        </p>
      ) : null}
      {step.error && !confirming ? (
        <Alert variant="danger" className="small py-2">
          The DKIM key was not changed: {step.error.message}
        </Alert>
      ) : null}
      <div className="d-flex flex-wrap gap-2">
        {!dkim.next && !dkim.previous ? (
          <Button variant="outline-primary" size="sm" disabled={step.isPending} onClick={() => run('create')}>
            {step.isPending ? 'Making a new key…' : 'Rotate key'}
          </Button>
        ) : null}
        {dkim.next ? (
          <>
            <Button variant="primary" size="sm" onClick={() => setConfirming('switch')}>
              Switch to {dkim.next.selector}
            </Button>
            <Button variant="outline-danger" size="sm" onClick={() => setConfirming('discard')}>
              Discard {dkim.next.selector}
            </Button>
          </>
        ) : null}
        {dkim.previous ? (
          <Button variant="outline-danger" size="sm" onClick={() => setConfirming('retire')}>
            Retire {dkim.previous.selector}
          </Button>
        ) : null}
      </div>
      <ConfirmDialog
        show={dialog !== null}
        title={dialog?.title ?? ''}
        confirmLabel={dialog?.confirmLabel ?? ''}
        pendingLabel={dialog?.pendingLabel ?? ''}
        variant={confirming === 'switch' ? 'primary' : 'danger'}
        pending={step.isPending}
        error={step.error}
        errorTitle="The DKIM key was not changed"
        onConfirm={() => confirming && run(confirming)}
        onCancel={() => {
          setConfirming(null);
          step.reset();
        }}
      >
        <p className="mb-0">{dialog?.text}</p>
        {confirming === 'switch' && !nextPublished ? (
          <Alert variant="warning" className="mt-3 mb-0 small">
            DNS does not hold the new key’s record yet (last looked up on this page).
          </Alert>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}

function dialogText(step: Confirmed, dkim: DkimState, domain: string) {
  switch (step) {
    case 'switch':
      return {
        title: `Sign ${domain}'s mail with ${dkim.next?.selector ?? ''}?`,
        confirmLabel: 'Switch key',
        pendingLabel: 'Switching…',
        text: `Mail is signed with the new key from now on. Receivers that cannot find its DKIM record (${dkim.next?.selector ?? ''}._domainkey.${domain}) will fail the signature, so publish it first. The old key stays published until you retire it.`,
      };
    case 'retire':
      return {
        title: `Retire the DKIM key ${dkim.previous?.selector ?? ''}?`,
        confirmLabel: 'Retire key',
        pendingLabel: 'Retiring…',
        text: `Its record is no longer listed and you can remove ${dkim.previous?.selector ?? ''}._domainkey.${domain} from DNS. Mail signed with it that has not arrived yet will fail DKIM.`,
      };
    case 'discard':
      return {
        title: `Discard the new DKIM key ${dkim.next?.selector ?? ''}?`,
        confirmLabel: 'Discard key',
        pendingLabel: 'Discarding…',
        text: `Mail stays signed with ${dkim.selector}. The new key is deleted and cannot be brought back; remove its record from DNS if you published it.`,
      };
  }
}
