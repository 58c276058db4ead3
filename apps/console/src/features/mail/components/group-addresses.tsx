import type { GroupAddress } from '@atrium/contracts/mail-addresses';
import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { SectionCard } from '../../../components/section-card.tsx';
import { ActionError } from '../../users/components/action-error.tsx';
import { mailAddressActions, useGroupAddresses, useMailAddressMutation } from '../api/mail-addresses.ts';
import { AddressFields } from './address-fields.tsx';
import { AddressListItem } from './address-list-item.tsx';
import { GroupSelect } from './group-select.tsx';

/** Group addresses: a distribution list delivering to every member who has a mailbox. */
export function GroupAddresses({ domains }: { domains: string[] }) {
  const list = useGroupAddresses();
  const [groupId, setGroupId] = useState('');
  const [localPart, setLocalPart] = useState('');
  const [domain, setDomain] = useState('');
  const set = useMailAddressMutation(mailAddressActions.setGroupAddress);
  const remove = useMailAddressMutation(mailAddressActions.removeGroupAddress);
  const removal = useConfirmDialog(remove, (item: GroupAddress) => item.group.id);
  const chosenDomain = domain || domains[0] || '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    set.mutate(
      { groupId, localPart: localPart.trim(), domain: chosenDomain },
      { onSuccess: () => setLocalPart('') },
    );
  };

  return (
    <SectionCard title="Group addresses" titleMargin="mb-1">
      <p className="small text-body-secondary">
        Mail to a group&apos;s address goes to every member at once; someone removed from the group gets none
        from then on. Members do not send as the group.
      </p>
      {domains.length === 0 ? (
        <p className="small mb-3">Group addresses need a verified domain.</p>
      ) : (
        <Form onSubmit={submit} aria-label="Set a group address" className="mb-3">
          <ActionError title="The group address was not set" error={set.error} onClose={() => set.reset()} />
          <GroupSelect controlId="group-address-group" value={groupId} onChange={setGroupId} />
          <AddressFields
            id="group-address"
            localPart={localPart}
            domain={chosenDomain}
            domains={domains}
            onLocalPart={(value) => {
              setLocalPart(value);
              set.reset();
            }}
            onDomain={setDomain}
          />
          <Button type="submit" size="sm" disabled={!groupId || !localPart.trim() || set.isPending}>
            {set.isPending ? 'Saving…' : 'Set group address'}
          </Button>
        </Form>
      )}
      {list.isPending ? (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading group addresses" />
      ) : list.isError ? (
        <ActionError title="The group addresses could not be loaded" error={list.error} />
      ) : list.data.groupAddresses.length === 0 ? (
        <p className="text-body-secondary mb-0">No group has an address yet.</p>
      ) : (
        <ListGroup as="ul" aria-label="Group addresses">
          {list.data.groupAddresses.map((item) => (
            <AddressListItem
              key={item.group.id}
              address={item.address}
              removeLabel={`Remove the address of ${item.group.name}`}
              onRemove={() => removal.ask(item)}
            >
              {item.group.name} · {item.group.memberCount}{' '}
              {item.group.memberCount === 1 ? 'member' : 'members'}
            </AddressListItem>
          ))}
        </ListGroup>
      )}
      <ConfirmDialog
        {...removal.dialog}
        title={`Remove ${removal.target?.address ?? ''} from ${removal.target?.group.name ?? ''}?`}
        confirmLabel="Remove address"
        pendingLabel="Removing…"
        errorTitle="The group address was not removed"
      >
        <p className="mb-0">
          Mail to {removal.target?.address} is refused from the next message on. The group and its members are
          not affected.
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}
