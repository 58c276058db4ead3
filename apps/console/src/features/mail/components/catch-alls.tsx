import type { DomainCatchAll } from '@atrium/contracts/mail-addresses';
import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { SectionCard } from '../../../components/section-card.tsx';
import { ActionError } from '../../users/components/action-error.tsx';
import { mailAddressActions, useMailAddressMutation } from '../api/mail-addresses.ts';
import { GroupSelect } from './group-select.tsx';
import { UserPicker, type PickedUser } from './user-picker.tsx';

/** Each verified domain's catch-all: where mail to an address nobody holds goes, if anywhere. */
export function CatchAlls({ domains }: { domains: DomainCatchAll[] }) {
  const remove = useMailAddressMutation(mailAddressActions.removeCatchAll);
  const removal = useConfirmDialog(remove, (item: DomainCatchAll) => item.domainId);
  const [editing, setEditing] = useState<string | null>(null);

  return (
    <SectionCard title="Catch-all" titleMargin="mb-1">
      <p className="small text-body-secondary">
        Mail to an address on the domain that no user, alias or group has goes to one user or group. Without
        one, such mail is refused.
      </p>
      {domains.length === 0 ? (
        <p className="text-body-secondary mb-0">A catch-all needs a verified domain.</p>
      ) : (
        <ListGroup as="ul" aria-label="Catch-alls">
          {domains.map((item) => (
            <ListGroup.Item as="li" key={item.domainId}>
              <div className="d-flex flex-wrap align-items-center justify-content-between gap-2">
                <div className="text-break min-w-0">
                  <div className="fw-semibold">{item.domain}</div>
                  <div className="small text-body-secondary" data-testid={`catch-all-${item.domain}`}>
                    {item.catchAll
                      ? `To ${item.catchAll.type === 'group' ? 'the group ' : ''}${item.catchAll.name}`
                      : 'None: unknown addresses are refused'}
                  </div>
                </div>
                <div className="d-flex gap-2 flex-shrink-0">
                  <Button
                    size="sm"
                    variant="outline-primary"
                    aria-label={`Set the catch-all of ${item.domain}`}
                    onClick={() => setEditing(editing === item.domainId ? null : item.domainId)}
                  >
                    {item.catchAll ? 'Change' : 'Set'}
                  </Button>
                  {item.catchAll ? (
                    <Button
                      size="sm"
                      variant="outline-danger"
                      aria-label={`Remove the catch-all of ${item.domain}`}
                      onClick={() => removal.ask(item)}
                    >
                      Remove
                    </Button>
                  ) : null}
                </div>
              </div>
              {editing === item.domainId ? (
                <CatchAllForm domain={item} onDone={() => setEditing(null)} />
              ) : null}
            </ListGroup.Item>
          ))}
        </ListGroup>
      )}
      <ConfirmDialog
        {...removal.dialog}
        title={`Remove the catch-all of ${removal.target?.domain ?? ''}?`}
        confirmLabel="Remove catch-all"
        pendingLabel="Removing…"
        errorTitle="The catch-all was not removed"
      >
        <p className="mb-0">
          Mail to addresses on {removal.target?.domain} that nobody holds is refused from the next message on.
          Mailboxes, aliases and group addresses keep their mail.
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}

function CatchAllForm({ domain, onDone }: { domain: DomainCatchAll; onDone: () => void }) {
  const [type, setType] = useState<'user' | 'group'>('user');
  const [user, setUser] = useState<PickedUser | null>(null);
  const [groupId, setGroupId] = useState('');
  const set = useMailAddressMutation(mailAddressActions.setCatchAll);
  const target = type === 'user' ? user?.id : groupId;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (target) set.mutate({ domainId: domain.domainId, type, id: target }, { onSuccess: onDone });
  };

  return (
    <Form onSubmit={submit} className="mt-3" aria-label={`Catch-all of ${domain.domain}`}>
      <ActionError title="The catch-all was not set" error={set.error} onClose={() => set.reset()} />
      <div className="mb-2">
        <Form.Check
          inline
          type="radio"
          id={`catch-all-user-${domain.domainId}`}
          name={`catch-all-type-${domain.domainId}`}
          label="A user"
          checked={type === 'user'}
          onChange={() => setType('user')}
        />
        <Form.Check
          inline
          type="radio"
          id={`catch-all-group-${domain.domainId}`}
          name={`catch-all-type-${domain.domainId}`}
          label="A group"
          checked={type === 'group'}
          onChange={() => setType('group')}
        />
      </div>
      {type === 'user' ? (
        <UserPicker id={`catch-all-pick-${domain.domainId}`} label="User" value={user} onChange={setUser} />
      ) : (
        <GroupSelect
          controlId={`catch-all-group-pick-${domain.domainId}`}
          value={groupId}
          onChange={setGroupId}
        />
      )}
      <div className="d-flex gap-2">
        <Button type="submit" size="sm" disabled={!target || set.isPending}>
          {set.isPending ? 'Saving…' : 'Save catch-all'}
        </Button>
        <Button size="sm" variant="outline-secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}
