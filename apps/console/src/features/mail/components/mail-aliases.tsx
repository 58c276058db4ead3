import type { MailAlias } from '@atrium/contracts/mail-addresses';
import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { LoadMoreButton } from '../../../components/load-more-button.tsx';
import { SearchField } from '../../../components/search-field.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { SectionCard } from '../../../components/section-card.tsx';
import { ActionError } from '../../users/components/action-error.tsx';
import { mailAddressActions, useMailAddressMutation, useMailAliases } from '../api/mail-addresses.ts';
import { AddressFields } from './address-fields.tsx';
import { AddressListItem } from './address-list-item.tsx';
import { UserPicker, type PickedUser } from './user-picker.tsx';

/** Users' aliases: add one to a user, find them by address (50 at a time), remove one. */
export function MailAliases({ domains }: { domains: string[] }) {
  const [search, setSearch] = useState('');
  const list = useMailAliases(search.trim());
  const [user, setUser] = useState<PickedUser | null>(null);
  const [localPart, setLocalPart] = useState('');
  const [domain, setDomain] = useState('');
  const add = useMailAddressMutation(mailAddressActions.addAlias);
  const remove = useMailAddressMutation(mailAddressActions.removeAlias);
  const removal = useConfirmDialog(remove, (alias: MailAlias) => alias.id);
  const aliases = list.data?.pages.flatMap((page) => page.aliases) ?? [];
  const chosenDomain = domain || domains[0] || '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!user) return;
    add.mutate(
      { userId: user.id, localPart: localPart.trim(), domain: chosenDomain },
      { onSuccess: () => setLocalPart('') },
    );
  };

  return (
    <SectionCard title="Aliases" titleMargin="mb-1">
      <p className="small text-body-secondary">
        Extra addresses of a user on your verified domains. Mail to an alias arrives in the user&apos;s
        mailbox, and they may send as it.
      </p>
      {domains.length === 0 ? (
        <p className="small mb-3">Aliases need a verified domain.</p>
      ) : (
        <Form onSubmit={submit} aria-label="Add an alias" className="mb-3">
          <ActionError title="The alias was not added" error={add.error} onClose={() => add.reset()} />
          <UserPicker id="alias-user" label="User" value={user} onChange={setUser} />
          <AddressFields
            id="alias-address"
            localPart={localPart}
            domain={chosenDomain}
            domains={domains}
            onLocalPart={(value) => {
              setLocalPart(value);
              add.reset();
            }}
            onDomain={setDomain}
          />
          <Button type="submit" size="sm" disabled={!user || !localPart.trim() || add.isPending}>
            {add.isPending ? 'Adding…' : 'Add alias'}
          </Button>
        </Form>
      )}
      <SearchField
        id="alias-search"
        label="Find an alias"
        placeholder="The start of the address"
        value={search}
        onChange={setSearch}
      />
      {list.isPending ? (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading aliases" />
      ) : list.isError ? (
        <ActionError title="The aliases could not be loaded" error={list.error} />
      ) : aliases.length === 0 ? (
        <p className="text-body-secondary mb-0">
          {search.trim() ? 'No alias starts so.' : 'No aliases yet.'}
        </p>
      ) : (
        <ListGroup as="ul" aria-label="Aliases">
          {aliases.map((alias) => (
            <AddressListItem
              key={alias.id}
              address={alias.address}
              removeLabel={`Remove the alias ${alias.address}`}
              onRemove={() => removal.ask(alias)}
            >
              {alias.user.name} · {alias.user.email}
            </AddressListItem>
          ))}
        </ListGroup>
      )}
      <LoadMoreButton pages={list}>Show more</LoadMoreButton>
      <ConfirmDialog
        {...removal.dialog}
        title={`Remove the alias ${removal.target?.address ?? ''}?`}
        confirmLabel="Remove alias"
        pendingLabel="Removing…"
        errorTitle="The alias was not removed"
      >
        <p className="mb-0">
          Mail to {removal.target?.address} is refused from the next message on, and{' '}
          {removal.target?.user.name} can no longer send as it. Their own address and other aliases are not
          affected.
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}
