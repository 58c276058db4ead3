import { activityKinds } from '@atrium/contracts/activity-kinds';

/** Actions whose words do not read right when spelled out from their id. */
const ACTION_WORDS: Record<string, string> = {
  dns: 'DNS',
  'dns.record_published': 'DNS record published',
  'dns.record_failed': 'DNS record could not be published',
  'migration.user_import_started': 'User import started',
  'migration.user_import_finished': 'User import finished',
  'migration.user_import_cancelled': 'User import cancelled',
  'migration.mail_started': 'Mail migration started',
  'migration.mail_rerun': 'Mail migration run again',
  'migration.mail_finished': 'Mail migration finished',
  'migration.mail_failed': 'Mail migration failed',
  'migration.mail_cancelled': 'Mail migration cancelled',
  'takeout.started': 'Export of everything started',
  'takeout.finished': 'Export of everything finished',
  'takeout.failed': 'Export of everything failed',
  'takeout.downloaded': 'Export of everything downloaded',
  'mail.catch_all_set': 'Mail catch-all set',
  'mail.catch_all_removed': 'Mail catch-all removed',
  'subscription.started': 'Subscription started',
  'subscription.changed': 'Subscription changed',
  'subscription.trial_ended': 'Trial ended',
};

/** 'domain.verified' → 'Domain verified'; 'user.password_reset' → 'User password reset'. */
export function describeAction(action: string): string {
  const words = ACTION_WORDS[action];
  if (words) return words;
  return spellOut(action);
}

function spellOut(action: string): string {
  const words = action.replaceAll('.', ' ').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The filter label of an action's kind (the part before its first dot). */
export function kindLabel(action: string): string {
  const kind = action.split('.')[0] ?? action;
  return activityKinds.find((k) => k.value === kind)?.label ?? describeAction(kind);
}
