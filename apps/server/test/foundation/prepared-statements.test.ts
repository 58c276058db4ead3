import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import type { Db } from '../../src/db/database.ts';
import { PREPARED_PER_CONNECTION } from '../../src/db/prepared-statements.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// On a PostgreSQL server each connection keeps the statements it runs prepared (issue 18). A
// migration by another process (a rolling upgrade) can change what one of them returns; these
// check that queries see the new columns and never keep failing.

let database: TestDatabase;
/** Another process's connection to the same database (on PGlite, the same database). */
let elsewhere: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  elsewhere = database.url ? await connectDatabase({ databaseUrl: database.url }) : database.db;
  await sql`create table notes (id int primary key, body text not null)`.execute(database.db);
  await sql`insert into notes values (1, 'first')`.execute(database.db);
});

afterAll(async () => {
  if (elsewhere !== database.db) await elsewhere.destroy();
  await database.drop();
});

const readNote = (db: Db) => sql<Record<string, unknown>>`select * from notes where id = ${1}`.execute(db);

describe('a column added by another process', () => {
  it('shows in the next query that read the table before, without an error', async () => {
    expect((await readNote(database.db)).rows).toEqual([{ id: 1, body: 'first' }]);
    await sql`alter table notes add column pinned boolean not null default false`.execute(elsewhere);
    expect((await readNote(database.db)).rows).toEqual([{ id: 1, body: 'first', pinned: false }]);
    expect((await readNote(database.db)).rows).toEqual([{ id: 1, body: 'first', pinned: false }]);
  });

  it('fails at most the one transaction that was running, and the next one reads the new column', async () => {
    const inTransaction = () => database.db.transaction().execute((trx) => readNote(trx));
    await inTransaction();
    await sql`alter table notes add column colour text not null default 'blue'`.execute(elsewhere);
    const outcomes = [];
    for (let i = 0; i < 2; i++) {
      outcomes.push(
        await inTransaction().then(
          (r) => r.rows,
          (e: Error) => e.message,
        ),
      );
    }
    const failed = outcomes.filter((o) => typeof o === 'string');
    expect(failed.length).toBeLessThanOrEqual(1);
    expect(outcomes.at(-1)).toEqual([{ id: 1, body: 'first', pinned: false, colour: 'blue' }]);
  });
});

// What the server holds prepared can only be seen on a server; registered only with one (a skipped
// test fails the run), and the suite runs once more with TEST_DATABASE_URL set.
if (process.env.TEST_DATABASE_URL) {
  describe('statements prepared on a PostgreSQL connection', () => {
    /** The texts this connection holds prepared under Atrium's names. */
    const preparedTexts = async (trx: Db) =>
      (
        await sql<{ statement: string }>`
          select statement from pg_prepared_statements where name like ${'atrium_%'}`.execute(trx)
      ).rows.map((r) => r.statement);

    it('are prepared once per text, and answer as before', async () => {
      await database.db.transaction().execute(async (trx) => {
        const twice = [
          await sql`select ${5}::int * 2 as n`.execute(trx),
          await sql`select ${6}::int * 2 as n`.execute(trx),
        ];
        expect(twice.map((r) => r.rows)).toEqual([[{ n: 10 }], [{ n: 12 }]]);
        const texts = await preparedTexts(trx);
        expect(texts.filter((t) => t === 'select $1::int * 2 as n')).toHaveLength(1);
      });
    });

    it(`stop at ${PREPARED_PER_CONNECTION} texts a connection; later ones still answer`, async () => {
      await database.db.transaction().execute(async (trx) => {
        const total = PREPARED_PER_CONNECTION + 20;
        for (let i = 0; i < total; i++) {
          const { rows } = await sql`select ${i}::int + ${sql.lit(i)} as n`.execute(trx);
          expect(rows).toEqual([{ n: 2 * i }]);
        }
        expect(await preparedTexts(trx)).toHaveLength(PREPARED_PER_CONNECTION);
      });
    });
  });
}
