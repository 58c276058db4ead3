import type { Group } from '@atrium/contracts/groups';
import { X } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { Link } from 'react-router';
import { LoadMoreButton } from '../../../components/load-more-button.tsx';
import { SearchField } from '../../../components/search-field.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { paths } from '../../../lib/paths.ts';
import { useUsersList } from '../../users/api/list-users.ts';
import { ActionError } from '../../users/components/action-error.tsx';
import { UserStatusBadge } from '../../users/components/user-status-badge.tsx';
import { useGroupMembers } from '../api/group-members.ts';
import { groupActions, useGroupMutation } from '../api/groups.ts';
import { RemoveMemberDialog } from './remove-member-dialog.tsx';

/** A group's members (50 at a time) with remove buttons, and a search to add people. */
export function GroupMembersPanel({ group }: { group: Group }) {
  const members = useGroupMembers(group.id);
  const [search, setSearch] = useState('');
  const candidates = useUsersList(
    { q: search.trim(), sort: 'name', dir: 'asc' },
    { enabled: search.trim() !== '' },
  );
  const add = useGroupMutation((userId: string) => groupActions.addMembers(group.id, [userId]));
  const remove = useGroupMutation((userId: string) => groupActions.removeMember(group.id, userId));
  const [leaving, setLeaving] = useState<{ id: string; name: string } | null>(null);
  // Dashboard's members are the administrators: adding one asks first (issue 42).
  const [promoting, setPromoting] = useState<{ id: string; name: string } | null>(null);
  const list = members.data?.pages.flatMap((p) => p.members) ?? [];
  const memberIds = new Set(list.map((m) => m.id));
  const matches = search.trim()
    ? (candidates.data?.users ?? []).filter((u) => !memberIds.has(u.id)).slice(0, 8)
    : [];

  return (
    <SectionCard title={`${group.name} members`} titleMargin="mb-1">
      {group.isSystem ? (
        <p className="small text-body-secondary">
          Members of Dashboard are administrators. It always keeps at least one active member.
        </p>
      ) : null}
      <ActionError title="The members could not be changed" error={add.error} onClose={() => add.reset()} />
      <SearchField
        id="group-add-member"
        label="Add people"
        placeholder="Name or e-mail, from the start"
        value={search}
        onChange={setSearch}
      />
      {matches.length > 0 ? (
        <ListGroup className="mb-3" aria-label="Matching users">
          {matches.map((user) => (
            <ListGroup.Item key={user.id} className="d-flex align-items-center justify-content-between gap-2">
              <span className="text-break small">
                {user.name} <span className="text-body-secondary">{user.email}</span>
              </span>
              <Button
                size="sm"
                variant="outline-primary"
                disabled={add.isPending}
                onClick={() => (group.isSystem ? setPromoting(user) : add.mutate(user.id))}
              >
                Add<span className="visually-hidden"> {user.name}</span>
              </Button>
            </ListGroup.Item>
          ))}
        </ListGroup>
      ) : search.trim() && candidates.data ? (
        <p className="small text-body-secondary">Nobody else matches.</p>
      ) : null}

      {members.isPending ? (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading members" />
      ) : list.length === 0 ? (
        <p className="text-body-secondary mb-0">No members yet.</p>
      ) : (
        <ListGroup aria-label={`${group.name} members`}>
          {list.map((member) => (
            <ListGroup.Item
              key={member.id}
              className="d-flex align-items-center justify-content-between gap-2"
            >
              <div className="text-break">
                <Link to={paths.userDetail(member.id)}>{member.name}</Link>
                <div className="small text-body-secondary">{member.email}</div>
              </div>
              <div className="d-flex align-items-center gap-2">
                {member.status !== 'active' ? <UserStatusBadge status={member.status} /> : null}
                <Button
                  variant="outline-danger"
                  size="sm"
                  aria-label={`Remove ${member.name} from ${group.name}`}
                  onClick={() => setLeaving(member)}
                >
                  <X size={16} aria-hidden="true" />
                </Button>
              </div>
            </ListGroup.Item>
          ))}
        </ListGroup>
      )}
      <LoadMoreButton pages={members}>Load more</LoadMoreButton>
      <ConfirmDialog
        show={promoting !== null}
        title={`Make ${promoting?.name ?? ''} an administrator?`}
        confirmLabel="Make administrator"
        pendingLabel="Adding…"
        variant="primary"
        pending={add.isPending}
        error={add.error}
        errorTitle="The members could not be changed"
        onConfirm={() => promoting && add.mutate(promoting.id, { onSuccess: () => setPromoting(null) })}
        onCancel={() => {
          setPromoting(null);
          add.reset();
        }}
      >
        <p className="mb-0">
          Members of {group.name} are the organisation&apos;s administrators: from their next page,{' '}
          {promoting?.name} can add and remove users, change groups, domains, apps, mail settings and the
          subscription.
        </p>
      </ConfirmDialog>
      <RemoveMemberDialog
        removal={leaving && { memberName: leaving.name, groupName: group.name, isSystem: group.isSystem }}
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
