import {
  MAIL_MIGRATION_MAX_ROWS,
  startMailMigrationSchema,
  type StartMailMigration,
} from '@atrium/contracts/mail-migration';
import { parse } from 'csv-parse/sync';
import { badRequest } from '../../lib/errors.ts';
import { delimiterOf, looksLikeJson } from './csv-formats.ts';

/**
 * The file of mailboxes to migrate: one row per mailbox with the Atrium address, the old
 * provider's IMAP host, port and TLS mode, the login and the password (or app password). Column
 * names are compared without case, spaces and punctuation; port and TLS may be left empty
 * (TLS on 993). Every row must be right before any job starts: the errors name their rows.
 */
const COLUMNS: Record<keyof StartMailMigration, string[]> = {
  email: ['email', 'atriumaddress', 'atriumemail', 'address', 'user'],
  host: ['host', 'imaphost', 'sourcehost', 'server', 'imapserver'],
  port: ['port', 'imapport', 'sourceport'],
  tls: ['tls', 'tlsmode', 'security', 'encryption'],
  login: ['login', 'sourcelogin', 'username', 'imaplogin'],
  password: ['password', 'apppassword', 'sourcepassword'],
};

const key = (name: string) => name.toLowerCase().replace(/[^a-z]/g, '');

export function readMailMigrationCsv(text: string): StartMailMigration[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw badRequest('The file is empty.');
  if (looksLikeJson(body)) {
    throw badRequest(
      'This is not a CSV file: it holds JSON. Send a CSV file instead: a header row (email, host, port, tls, login, password), then one row per mailbox.',
    );
  }
  let records: string[][];
  try {
    records = parse(body, {
      delimiter: delimiterOf(body.split(/\r?\n/, 1)[0]!),
      relax_column_count: true,
      skip_empty_lines: true,
    });
  } catch (error) {
    throw badRequest(`The file is not valid CSV: ${(error as Error).message}`);
  }
  const header = records[0]!.map(key);
  const index = Object.fromEntries(
    Object.entries(COLUMNS).map(([field, names]) => [field, header.findIndex((h) => names.includes(h))]),
  ) as Record<keyof StartMailMigration, number>;
  const missing = (['email', 'host', 'login', 'password'] as const).filter((f) => index[f] < 0);
  if (missing.length > 0) {
    throw badRequest(
      `The file needs the columns email, host, port, tls, login and password; ${missing.join(', ')} missing.`,
    );
  }
  const rows = records.slice(1);
  if (rows.length === 0) throw badRequest('The file has a header but no rows.');
  if (rows.length > MAIL_MIGRATION_MAX_ROWS) {
    throw badRequest(
      `The file has more than ${MAIL_MIGRATION_MAX_ROWS} mailboxes. Split it into several files.`,
    );
  }
  const errors: string[] = [];
  const parsed: StartMailMigration[] = [];
  rows.forEach((record, i) => {
    const cell = (field: keyof StartMailMigration) => (index[field] >= 0 ? (record[index[field]] ?? '') : '');
    const tls = (cell('tls').trim().toLowerCase() || 'tls').replace(/^ssl$/, 'tls');
    const port = cell('port').trim() || (tls === 'tls' ? '993' : '143');
    const result = startMailMigrationSchema.safeParse({
      email: cell('email'),
      host: cell('host'),
      port,
      tls,
      login: cell('login'),
      password: cell('password'),
    });
    if (result.success) parsed.push(result.data);
    else errors.push(`Row ${i + 2}: ${result.error.issues[0]!.message}`);
  });
  if (errors.length > 0) {
    throw badRequest(
      `${errors.length} row${errors.length === 1 ? '' : 's'} need fixing. ${errors.slice(0, 10).join('. ')}.`,
    );
  }
  return parsed;
}
