import type { Notification } from '@atrium/contracts/notifications';
import { Check } from 'lucide-react';
import { Link } from 'react-router';
import { dateTime, timeAgo } from '../../../lib/format-time.ts';
import { NotificationIcon } from './notification-icon.tsx';

/**
 * One notification, in the dropdown or on the full page: unread ones are bold with a dot and
 * have their own 'mark as read' button; opening one that links somewhere also marks it read.
 */
export function NotificationItem({
  notification: n,
  onMarkRead,
  onOpen,
  busy = false,
}: {
  notification: Notification;
  onMarkRead: (id: string) => void;
  /** Called after the link is followed (the dropdown closes itself). */
  onOpen?: () => void;
  busy?: boolean;
}) {
  const title = n.link ? (
    <Link
      to={n.link}
      className="atrium-notification__title stretched-link"
      onClick={() => {
        if (!n.read) onMarkRead(n.id);
        onOpen?.();
      }}
    >
      {n.title}
    </Link>
  ) : (
    <span className="atrium-notification__title">{n.title}</span>
  );
  return (
    <li
      className={`atrium-notification${n.read ? '' : ' is-unread'}`}
      data-testid="notification"
      data-read={n.read ? 'true' : 'false'}
    >
      <NotificationIcon kind={n.kind} />
      <div className="atrium-notification__text position-relative">
        {title}
        {n.body ? <div className="atrium-notification__body">{n.body}</div> : null}
        <time className="atrium-notification__time" dateTime={n.createdAt} title={dateTime(n.createdAt)}>
          {timeAgo(n.createdAt)}
        </time>
      </div>
      {n.read ? (
        <span className="visually-hidden">Read</span>
      ) : (
        <button
          type="button"
          className="atrium-notification__mark"
          aria-label={`Mark “${n.title}” as read`}
          title="Mark as read"
          disabled={busy}
          onClick={() => onMarkRead(n.id)}
        >
          <span className="atrium-notification__dot" aria-hidden="true" />
          <Check size={16} className="atrium-notification__check" aria-hidden="true" />
        </button>
      )}
    </li>
  );
}
