import { Bell, BellOff } from 'lucide-react';
import { useState } from 'react';
import Dropdown from 'react-bootstrap/Dropdown';
import { useNavigate } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import {
  useClearNotifications,
  useMarkAllNotificationsRead,
  useMarkNotificationRead,
} from '../api/change-notifications.ts';
import { useLatestNotifications } from '../api/get-notifications.ts';
import { ClearNotificationsDialog } from './clear-notifications-dialog.tsx';
import { NotificationItem } from './notification-item.tsx';
import './notifications.css';

/** The badge stops counting here; the full page shows everything. */
const BADGE_MAX = 99;

/**
 * The header's notifications dropdown (both layouts): the newest notifications with an unread
 * badge, 'mark as read' for one or all, 'clear all', and 'show all' opening /notifications.
 * New ones arrive by polling (see api/poll-interval.ts).
 */
export function NotificationsMenu() {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const latest = useLatestNotifications();
  const markRead = useMarkNotificationRead();
  const markAll = useMarkAllNotificationsRead();
  const clearAll = useClearNotifications();
  const [askingClear, setAskingClear] = useState(false);

  const items = latest.data?.items ?? [];
  const unread = latest.data?.unreadCount ?? 0;
  const failure = markRead.error ?? markAll.error;
  const label = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';

  return (
    <>
      <Dropdown
        align="end"
        className="atrium-notifications"
        show={open}
        onToggle={(next) => setOpen(next)}
        // Marking as read keeps the menu open; following a link or 'show all' closes it.
        autoClose="outside"
      >
        <Dropdown.Toggle
          as="button"
          type="button"
          className="atrium-icon-btn atrium-no-caret position-relative"
          aria-label={label}
          data-testid="notifications-toggle"
        >
          <Bell size={20} aria-hidden="true" />
          {unread > 0 ? (
            <span
              className="atrium-notifications__badge"
              data-testid="notifications-badge"
              aria-hidden="true"
            >
              {unread > BADGE_MAX ? `${BADGE_MAX}+` : unread}
            </span>
          ) : null}
        </Dropdown.Toggle>
        <Dropdown.Menu className="atrium-notifications__menu shadow p-0" data-testid="notifications-menu">
          <div className="d-flex align-items-center justify-content-between gap-2 px-3 py-2 border-bottom">
            <span className="fw-semibold text-nowrap">
              Notifications
              {unread > 0 ? <span className="badge rounded-pill text-bg-primary ms-2">{unread}</span> : null}
            </span>
            <div className="d-flex gap-3 text-nowrap">
              <button
                type="button"
                className="btn btn-link btn-sm p-0 text-decoration-none"
                disabled={unread === 0 || markAll.isPending}
                onClick={() => markAll.mutate()}
              >
                mark as read
              </button>
              <button
                type="button"
                className="btn btn-link btn-sm p-0 text-decoration-none"
                disabled={items.length === 0}
                onClick={() => {
                  // The dialog takes over; the menu closes so it does not sit above or behind it.
                  setOpen(false);
                  setAskingClear(true);
                }}
              >
                clear all
              </button>
            </div>
          </div>
          {failure ? (
            <div className="alert alert-danger small m-2 mb-0 py-2" role="alert">
              <strong>That did not work.</strong> {failure.message}
            </div>
          ) : null}
          {latest.isError && !latest.data ? (
            <div className="text-center text-body-secondary small px-3 py-4" role="alert">
              <div className="fw-medium text-body">Notifications could not be loaded</div>
              <button type="button" className="btn btn-link btn-sm" onClick={() => void latest.refetch()}>
                Try again
              </button>
            </div>
          ) : items.length === 0 ? (
            <div className="text-center text-body-secondary px-3 py-4" data-testid="notifications-empty">
              <BellOff size={24} className="mb-2" aria-hidden="true" />
              <div className="fw-medium text-body">You&apos;re all caught up</div>
              <div className="small">New notifications will appear here.</div>
            </div>
          ) : (
            <ul className="atrium-notifications__list list-unstyled mb-0" aria-label="Newest notifications">
              {items.map((n) => (
                <NotificationItem
                  key={n.id}
                  notification={n}
                  busy={markRead.isPending && markRead.variables === n.id}
                  onMarkRead={(id) => markRead.mutate(id)}
                  onOpen={() => setOpen(false)}
                />
              ))}
            </ul>
          )}
          <div className="border-top text-center py-2">
            <button
              type="button"
              className="btn btn-link btn-sm text-decoration-none"
              onClick={() => {
                setOpen(false);
                void navigate(paths.notifications());
              }}
            >
              show all
            </button>
          </div>
        </Dropdown.Menu>
      </Dropdown>
      <ClearNotificationsDialog
        show={askingClear}
        total={latest.data?.totalCount ?? items.length}
        pending={clearAll.isPending}
        error={clearAll.error}
        onConfirm={() => clearAll.mutate(undefined, { onSuccess: () => setAskingClear(false) })}
        onCancel={() => {
          setAskingClear(false);
          clearAll.reset();
        }}
      />
    </>
  );
}
