import type { ColumnType } from 'kysely';

// The organisation's address book as Atrium serves it (modules/dav/directory-*, 2026_12_08_0200);
// listed in Database.

/** An organisation's address book change counter: its sync token and ctag. */
export interface DirectoryVersionsTable {
  organization_id: string;
  version: ColumnType<number, number, number>;
}

/** A card the organisation's address book holds or held, and the version of its last change. */
export interface DirectoryCardsTable {
  organization_id: string;
  kind: 'user' | 'address';
  source_id: string;
  version: ColumnType<number, number, number>;
  present: boolean;
}
