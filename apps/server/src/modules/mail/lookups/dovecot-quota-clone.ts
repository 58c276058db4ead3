import type { Db } from '../../../db/database.ts';
import type { DictCommit } from '../protocols/dovecot-dict.ts';
import { saveMailboxUsage } from '../settings/mailbox-usage.repository.ts';

/** The keys quota_clone writes (Dovecot 2.3), private to the mail user the transaction is for. */
const STORAGE = 'priv/quota/storage';
const MESSAGES = 'priv/quota/messages';
/** A non-negative whole number Postgres' bigint holds (usage is far below that). */
const COUNT = /^\d{1,15}$/;

/**
 * Dovecot's quota_clone commits (mail-config's `quota_clone_dict`): each mailbox's usage, one
 * upsert per commit. Anything but the two quota keys, a value that is not a count, or a user
 * without a mailbox is refused (Dovecot logs the refusal), so the dict socket cannot be used to
 * write anything else into Atrium.
 */
export function quotaCloneCommit(db: Db): DictCommit {
  return async (user, values) => {
    for (const [key, value] of values) {
      if (key !== STORAGE && key !== MESSAGES)
        return { ok: false, error: `${key.slice(0, 80)} is not stored` };
      if (!COUNT.test(value)) return { ok: false, error: `${key} is not a count` };
    }
    const storage = values.get(STORAGE);
    const messages = values.get(MESSAGES);
    const saved = await saveMailboxUsage(db, user.toLowerCase(), {
      ...(storage !== undefined ? { storageBytes: Number(storage) } : {}),
      ...(messages !== undefined ? { messages: Number(messages) } : {}),
    });
    if (!saved) return { ok: false, error: 'no such mailbox' };
    return { ok: true };
  };
}
