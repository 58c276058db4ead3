import { Outlet, useLoaderData } from 'react-router';
import type { CurrentUser } from '../../features/auth/api/current-user.ts';
import AdminLayout from './admin/admin-layout.tsx';
import AppsLayout from './apps/apps-layout.tsx';

/**
 * For pages anyone may see (the 404): admins keep the admin console around it, other signed-in
 * users the apps layout, and a signed-out visitor a plain page.
 */
export default function AnyVisitorLayout() {
  const user = useLoaderData<CurrentUser | null>();
  if (user?.isAdmin) return <AdminLayout />;
  if (user) return <AppsLayout />;
  return (
    <div className="atrium-public">
      <main className="atrium-public__inner">
        <Outlet />
      </main>
    </div>
  );
}
