import type { UserDetail } from '@atrium/contracts/users';
import { X } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { groupActions, useGroupMutation, useGroups } from '../../groups/api/groups.ts';
import { RemoveMemberDialog } from '../../groups/components/remove-member-dialog.tsx';
import { ActionError } from './action-error.tsx';

/**
 * The user's groups; membership of Dashboard makes them an admin at once, so adding them there
 * asks first and says what it gives them (issue 42).
 */
export function UserGroupsCard({ user }: { user: UserDetail }) {
  const groups = useGroups();
  const [choice, setChoice] = useState('');
  const add = useGroupMutation((groupId: string) => groupActions.addMembers(groupId, [user.id]));
  const remove = useGroupMutation((groupId: string) => groupActions.removeMember(groupId, user.id));
  const [leaving, setLeaving] = useState<UserDetail['groups'][number] | null>(null);
  const memberOf = new Set(user.groups.map((g) => g.id));
  const available = (groups.data?.groups ?? []).filter((g) => !memberOf.has(g.id));
  const [promoting, setPromoting] = useState(false);
  const added = () => {
    setChoice('');
    setPromoting(false);
  };
  return (
    <SectionCard title="Groups" className="mb-4">
      <ActionError title="The groups could not be changed" error={add.error} onClose={() => add.reset()} />
      {user.groups.length === 0 ? (
        <p className="text-body-secondary">Not in any group.</p>
      ) : (
        <ListGroup className="mb-3">
          {user.groups.map((group) => (
            <ListGroup.Item
              key={group.id}
              className="d-flex align-items-center justify-content-between gap-2"
            >
              <span>
                {group.name}
                {group.isSystem ? <span className="small text-body-secondary"> — administrators</span> : null}
              </span>
              <Button
                variant="outline-danger"
                size="sm"
                aria-label={`Remove from ${group.name}`}
                onClick={() => setLeaving(group)}
              >
                <X size={16} aria-hidden="true" />
              </Button>
            </ListGroup.Item>
          ))}
        </ListGroup>
      )}
      <Form
        className="d-flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (!choice) return;
          if (available.find((g) => g.id === choice)?.isSystem) setPromoting(true);
          else add.mutate(choice, { onSuccess: added });
        }}
      >
        <Form.Group className="flex-grow-1" controlId="user-add-group">
          <Form.Label className="visually-hidden">Add to group</Form.Label>
          <Form.Select value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value="">Add to a group…</option>
            {available.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </Form.Select>
        </Form.Group>
        <Button type="submit" variant="outline-primary" disabled={!choice || add.isPending}>
          Add
        </Button>
      </Form>
      <ConfirmDialog
        show={promoting}
        title={`Make ${user.name} an administrator?`}
        confirmLabel="Make administrator"
        pendingLabel="Adding…"
        variant="primary"
        pending={add.isPending}
        error={add.error}
        errorTitle="The groups could not be changed"
        onConfirm={() => add.mutate(choice, { onSuccess: added })}
        onCancel={() => {
          setPromoting(false);
          add.reset();
        }}
      >
        <p className="mb-0">
          Members of {available.find((g) => g.id === choice)?.name ?? 'this group'} are the
          organisation&apos;s administrators: from their next page, {user.name} can add and remove users,
          change groups, domains, apps, mail settings and the subscription.
        </p>
      </ConfirmDialog>
      <RemoveMemberDialog
        removal={leaving && { memberName: user.name, groupName: leaving.name, isSystem: leaving.isSystem }}
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => leaving && remove.mutate(leaving.id, { onSuccess: () => setLeaving(null) })}
        onCancel={() => {
          setLeaving(null);
          remove.reset();
        }}
      />
    </SectionCard>
  );
}
