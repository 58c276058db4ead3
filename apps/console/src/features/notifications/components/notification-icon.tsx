import { AppWindow, Bell, Globe, KeyRound, ListChecks, UserRound, type LucideIcon } from 'lucide-react';

/** The area before the first dot of a kind picks the icon: domain.verified → the globe. */
const icons: Record<string, LucideIcon> = {
  domain: Globe,
  user: UserRound,
  app: AppWindow,
  setup: ListChecks,
  password: KeyRound,
};

export function NotificationIcon({ kind }: { kind: string }) {
  const area = kind.split('.')[0] ?? '';
  const Icon = icons[area] ?? Bell;
  const failed = kind.endsWith('.failed');
  return (
    <span
      className={`atrium-notification__icon${failed ? ' is-failed' : ''}`}
      aria-hidden="true"
      data-kind={kind}
    >
      <Icon size={16} strokeWidth={2} />
    </span>
  );
}
