import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { MtaStsMode } from './mta-sts-policy.ts';

/**
 * doctor's record that MAIL_HOST served a certificate a sending server accepts (issue 44 item 6).
 * A file in DATA_DIR rather than a row: doctor runs as root and, with the embedded database, cannot
 * open it while the server runs; Atrium only reads the file. Written 0644, replaced whole.
 */
export const MAIL_CERTIFICATE_SEEN_FILE = 'mail-certificate-seen.json';

const seenSchema = z.object({
  mailHost: z.string(),
  /** When doctor saw it. */
  seenAt: z.string(),
  /** The certificate's end of validity: past it, the fact no longer holds. */
  validTo: z.string(),
});
export type MailCertificateSeen = z.infer<typeof seenSchema>;

export async function recordMailCertificateSeen(dataDir: string, seen: MailCertificateSeen): Promise<void> {
  const file = path.join(dataDir, MAIL_CERTIFICATE_SEEN_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(seen)}\n`, { mode: 0o644 });
  await rename(temporary, file);
}

/**
 * `enforce` once doctor has seen a trusted certificate for this MAIL_HOST that is still valid;
 * `testing` before (a sender enforcing a policy against a certificate it cannot verify would stop
 * delivering), for another MAIL_HOST, or once that certificate has expired.
 */
export async function mtaStsMode(
  config: { dataDir: string; mailHost: string },
  now = new Date(),
): Promise<MtaStsMode> {
  const text = await readFile(path.join(config.dataDir, MAIL_CERTIFICATE_SEEN_FILE), 'utf8').catch(
    () => undefined,
  );
  if (text === undefined) return 'testing';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'testing';
  }
  const seen = seenSchema.safeParse(parsed);
  if (!seen.success || seen.data.mailHost !== config.mailHost) return 'testing';
  const validTo = new Date(seen.data.validTo).getTime();
  return Number.isFinite(validTo) && validTo > now.getTime() ? 'enforce' : 'testing';
}
