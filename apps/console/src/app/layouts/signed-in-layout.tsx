import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import AdminLayout from './admin/admin-layout.tsx';
import AppsLayout from './apps/apps-layout.tsx';

/**
 * For pages every signed-in user has (e.g. /notifications): an admin stays in the admin console
 * they came from, anyone else gets the apps layout. Either layout renders the page in its Outlet.
 */
export default function SignedInLayout() {
  const user = useCurrentUser();
  return user.isAdmin ? <AdminLayout /> : <AppsLayout />;
}
