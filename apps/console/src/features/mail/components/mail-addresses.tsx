import { QueryState } from '../../apps/components/query-state.tsx';
import { useCatchAlls } from '../api/mail-addresses.ts';
import { CatchAlls } from './catch-alls.tsx';
import { GroupAddresses } from './group-addresses.tsx';
import { MailAliases } from './mail-aliases.tsx';

/** Mail Settings' addresses: aliases, group addresses and each domain's catch-all. */
export function MailAddresses() {
  const catchAlls = useCatchAlls();
  if (!catchAlls.data) {
    return (
      <QueryState
        error={catchAlls.error}
        what="your mail addresses"
        onRetry={() => void catchAlls.refetch()}
      />
    );
  }
  const domains = catchAlls.data.domains.map((d) => d.domain);
  return (
    <div className="d-grid gap-4">
      <MailAliases domains={domains} />
      <GroupAddresses domains={domains} />
      <CatchAlls domains={catchAlls.data.domains} />
    </div>
  );
}
