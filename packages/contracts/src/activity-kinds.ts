// Plain values, without zod, so pages that only label activity do not load the schemas.

/** Kinds the filter offers; an action's kind is the part before its first dot. */
export const activityKinds = [
  { value: 'organization', label: 'Organization' },
  { value: 'setup', label: 'Setup' },
  { value: 'domain', label: 'Domains' },
  { value: 'user', label: 'Users' },
  { value: 'group', label: 'Groups' },
  { value: 'app', label: 'Apps' },
  { value: 'mail', label: 'Mail' },
  { value: 'migration', label: 'Data Migration' },
  { value: 'takeout', label: 'Takeout' },
  { value: 'subscription', label: 'Subscription' },
] as const;

/** 'system' filters the entries without a user actor. */
export const SYSTEM_ACTOR = 'system';
