import type { MailConfigFiles, MailConfigOptions } from './mail-config.ts';

/**
 * rspamd's files that carry the organisations' own policy (spam sensitivity, allow and block
 * lists, sending limits): maps Atrium serves and rspamd re-reads without a restart. The base
 * configuration (rspamd-config.ts) merges these in.
 */
export function rspamdPolicyFiles(_o: MailConfigOptions): MailConfigFiles {
  return {};
}
