import { BellOff } from 'lucide-react';
import { useEffect, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { EmptyState } from '../../components/empty-state.tsx';
import { OlderEntriesFooter } from '../../components/load-more-button.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import {
  useClearNotifications,
  useMarkAllNotificationsRead,
  useMarkNotificationRead,
} from '../../features/notifications/api/change-notifications.ts';
import { useNotificationPages } from '../../features/notifications/api/get-notifications.ts';
import { ClearNotificationsDialog } from '../../features/notifications/components/clear-notifications-dialog.tsx';
import { NotificationItem } from '../../features/notifications/components/notification-item.tsx';
import '../../features/notifications/components/notifications.css';
import { PRODUCT_NAME } from '../../lib/constants.ts';

/** 'show all': every notification of the signed-in user, newest first, a page at a time. */
export default function NotificationsPage() {
  const pages = useNotificationPages();
  const markRead = useMarkNotificationRead();
  const markAll = useMarkAllNotificationsRead();
  const clearAll = useClearNotifications();
  const [askingClear, setAskingClear] = useState(false);

  useEffect(() => {
    document.title = `Notifications | ${PRODUCT_NAME}`;
  }, []);

  const items = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const unread = pages.data?.pages[0]?.unreadCount ?? 0;
  const failure = markRead.error ?? markAll.error;

  return (
    <>
      <PageHeader
        title="Notifications"
        description={
          pages.data ? (unread > 0 ? `${unread} unread` : 'Everything is read.') : 'Your notifications.'
        }
        actions={
          <>
            <Button
              variant="outline-primary"
              size="sm"
              disabled={unread === 0 || markAll.isPending}
              onClick={() => markAll.mutate()}
            >
              Mark all as read
            </Button>
            <Button
              variant="outline-danger"
              size="sm"
              disabled={items.length === 0}
              onClick={() => setAskingClear(true)}
            >
              Clear all
            </Button>
          </>
        }
      />
      <ClearNotificationsDialog
        show={askingClear}
        total={pages.data?.pages[0]?.totalCount ?? items.length}
        pending={clearAll.isPending}
        error={clearAll.error}
        onConfirm={() => clearAll.mutate(undefined, { onSuccess: () => setAskingClear(false) })}
        onCancel={() => {
          setAskingClear(false);
          clearAll.reset();
        }}
      />
      {failure ? (
        <Alert variant="danger">
          <Alert.Heading as="h2" className="h6">
            That did not work
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
        </Alert>
      ) : null}
      {pages.isPending ? (
        <p className="text-body-secondary" role="status">
          Loading notifications…
        </p>
      ) : pages.isError ? (
        <Alert variant="danger">
          <Alert.Heading as="h2" className="h6">
            Notifications could not be loaded
          </Alert.Heading>
          <p>{pages.error.message}</p>
          <Button variant="outline-danger" size="sm" onClick={() => void pages.refetch()}>
            Try again
          </Button>
        </Alert>
      ) : items.length === 0 ? (
        <EmptyState icon={BellOff} title="No notifications">
          Domain checks, new users, installed apps and setup reminders will appear here.
        </EmptyState>
      ) : (
        <div className="card atrium-card">
          <ul
            className="list-unstyled mb-0"
            aria-label="All notifications"
            data-testid="notifications-page-list"
          >
            {items.map((n) => (
              <NotificationItem
                key={n.id}
                notification={n}
                busy={markRead.isPending && markRead.variables === n.id}
                onMarkRead={(id) => markRead.mutate(id)}
              />
            ))}
          </ul>
          <OlderEntriesFooter pages={pages} label="Show older notifications" />
        </div>
      )}
    </>
  );
}
