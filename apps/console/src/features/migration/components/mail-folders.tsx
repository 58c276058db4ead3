import { QueryState } from '../../apps/components/query-state.tsx';
import { useMailMigrationFolders } from '../api/mail-migration.ts';

/** Each source folder of a mail migration: where it went, messages copied, and its error if any. */
export function MailFolders({ id, running }: { id: string; running: boolean }) {
  const folders = useMailMigrationFolders(id, true, running);
  if (!folders.data) {
    return <QueryState error={folders.error} what="the folders" onRetry={() => void folders.refetch()} />;
  }
  const list = folders.data.folders;
  if (list.length === 0) return <p className="small text-body-secondary mb-0">No folders copied yet.</p>;
  return (
    <div
      className="table-responsive"
      tabIndex={0}
      role="region"
      aria-label={`Folders of ${folders.data.email}`}
    >
      <table className="table table-sm align-middle mb-0 small">
        <caption className="visually-hidden">Folders of {folders.data.email}</caption>
        <thead>
          <tr>
            <th scope="col">Folder</th>
            <th scope="col">Copied into</th>
            <th scope="col" className="text-end">
              Messages
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((folder) => (
            <tr key={folder.source}>
              <td className="text-break">
                {folder.source}
                {folder.error ? (
                  <span className="d-block text-danger">
                    {folder.error.replace(`${folder.source}: `, '')}
                  </span>
                ) : null}
              </td>
              <td className="text-break">{folder.target}</td>
              <td className="text-end">{folder.messagesCopied.toLocaleString('en')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
