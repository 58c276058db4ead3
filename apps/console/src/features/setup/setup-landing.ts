import { redirect, type LoaderFunctionArgs } from 'react-router';
import { paths } from '../../lib/paths.ts';
import { queryClient } from '../../lib/query-client.ts';
import { requireAdmin } from '../auth/require-session.ts';
import { setupProgressQuery } from './api/setup-progress.ts';

/**
 * Guard of the admin landing pages (/, /dashboard and the catch-all): until the organisation's
 * setup is finished the admin lands in the wizard; afterwards on the dashboard.
 * Runs after the admin check, which it awaits (child loaders run alongside their parent's).
 */
export async function landInSetupUntilFinished(args: LoaderFunctionArgs): Promise<null> {
  await requireAdmin(args);
  const progress = await queryClient.fetchQuery(setupProgressQuery());
  if (!progress.completed) throw redirect(paths.setup());
  return null;
}
