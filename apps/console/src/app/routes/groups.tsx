import type { Group } from '@atrium/contracts/groups';
import { Pencil, Trash2, UsersRound } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../components/use-confirm-dialog.ts';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { groupActions, useGroupMutation, useGroups } from '../../features/groups/api/groups.ts';
import { GroupNameForm } from '../../features/groups/components/group-form.tsx';
import { GroupMembersPanel } from '../../features/groups/components/group-members-panel.tsx';

/** Groups with member counts; create, rename, delete; a group's members beside. */
export default function GroupsPage() {
  const groups = useGroups();
  // The open group lives in the address (?group=id), so the header search can link to a group.
  const [params, setParams] = useSearchParams();
  const selectedId = params.get('group');
  const setSelectedId = (id: string | null) => setParams(id ? { group: id } : {}, { replace: true });
  const [renaming, setRenaming] = useState<string | null>(null);
  const create = useGroupMutation(groupActions.create);
  const rename = useGroupMutation((args: { id: string; name: string }) =>
    groupActions.rename(args.id, { name: args.name }),
  );
  const remove = useGroupMutation((id: string) => groupActions.remove(id));
  const deletion = useConfirmDialog(
    remove,
    (group: Group) => group.id,
    () => setSelectedId(null),
  );
  const list = groups.data?.groups ?? [];
  const selected = list.find((g) => g.id === selectedId) ?? list[0];

  return (
    <>
      <PageHeader title="Groups" description="Groups decide who is an admin and who may open each app." />
      <div className="row g-4">
        <div className="col-lg-6">
          <div className="card atrium-card">
            <div className="card-body">
              <div className="mb-3">
                <GroupNameForm
                  id="new-group-name"
                  label="New group"
                  submitLabel="Create group"
                  onSubmit={async (values) => setSelectedId((await create.mutateAsync(values)).id)}
                />
              </div>
              {!groups.data ? (
                <QueryState error={groups.error} what="groups" onRetry={() => void groups.refetch()} />
              ) : list.length === 0 ? (
                <EmptyState icon={UsersRound} title="No groups yet" />
              ) : (
                <div className="table-responsive">
                  <Table hover className="align-middle mb-0">
                    <thead>
                      <tr>
                        <th scope="col">Group</th>
                        <th scope="col" className="text-end">
                          Members
                        </th>
                        <th scope="col">
                          <span className="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((group) => (
                        <tr key={group.id} className={group.id === selected?.id ? 'table-active' : undefined}>
                          <td className="text-break">
                            {renaming === group.id ? (
                              <GroupNameForm
                                id={`rename-${group.id}`}
                                label={`New name for ${group.name}`}
                                submitLabel="Save"
                                defaultName={group.name}
                                onSubmit={async (values) => {
                                  await rename.mutateAsync({ id: group.id, name: values.name });
                                  setRenaming(null);
                                }}
                                onCancel={() => setRenaming(null)}
                              />
                            ) : (
                              <Button
                                variant="link"
                                className="p-0 text-start"
                                aria-pressed={group.id === selected?.id}
                                onClick={() => setSelectedId(group.id)}
                              >
                                {group.name}
                              </Button>
                            )}
                            {group.isSystem ? (
                              <div className="small text-body-secondary">Administrators</div>
                            ) : null}
                          </td>
                          <td className="text-end">{group.memberCount}</td>
                          <td className="text-end text-nowrap">
                            {group.isSystem ? null : (
                              <>
                                <Button
                                  variant="outline-secondary"
                                  size="sm"
                                  className="me-1"
                                  aria-label={`Rename ${group.name}`}
                                  onClick={() => setRenaming(group.id)}
                                >
                                  <Pencil size={16} aria-hidden="true" />
                                </Button>
                                <Button
                                  variant="outline-danger"
                                  size="sm"
                                  aria-label={`Delete ${group.name}`}
                                  onClick={() => deletion.ask(group)}
                                >
                                  <Trash2 size={16} aria-hidden="true" />
                                </Button>
                              </>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                </div>
              )}
            </div>
          </div>
        </div>
        <div className="col-lg-6">
          {selected ? <GroupMembersPanel key={selected.id} group={selected} /> : null}
        </div>
      </div>
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${deletion.target?.name ?? ''}?`}
        confirmLabel="Delete group"
        pendingLabel="Deleting…"
        errorTitle="The group was not deleted"
      >
        <p className="mb-0">
          Its {deletion.target?.memberCount ?? 0} members stay in the organisation; apps shared only with{' '}
          {deletion.target?.name} stop being available to them.
        </p>
      </ConfirmDialog>
    </>
  );
}
