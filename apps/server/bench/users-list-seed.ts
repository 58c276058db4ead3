import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/database.ts';

// Bulk seeding for the users-list benchmark: one INSERT … SELECT generate_series per chunk,
// never a row at a time. Names repeat like real ones so prefix searches match thousands.
const FIRST = `array['Anna','Andrew','Maria','Mark','Martin','Marta','John','Julia','James','Jane','Peter','Paula',
  'Sofia','Samuel','Lucas','Laura','Emma','Ethan','Olivia','Oscar','Noah','Nora','Liam','Lena','Mia','Max',
  'Chloe','Carl','Daniel','Diana','Elena','Eric','Fiona','Felix','Grace','George','Hannah','Henry','Isla','Ivan']`;
const LAST = `array['Smith','Jones','Taylor','Brown','Williams','Wilson','Johnson','Davies','Robinson','Wright',
  'Thompson','Evans','Walker','White','Roberts','Green','Hall','Wood','Jackson','Clarke','Martin','Garcia',
  'Muller','Schmidt','Rossi','Russo','Dubois','Moreau','Novak','Kowalski']`;

/** Creates `count` organisations, each with a Dashboard and two more groups; returns their ids. */
export async function seedOrganizations(
  db: Kysely<Database>,
  prefix: string,
  count: number,
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    insert into organizations (name, site_name)
    select 'Bench ' || ${prefix} || ' ' || i, ${prefix} || '-' || i from generate_series(1, ${count}) as i
    returning id`.execute(db);
  await sql`
    insert into groups (organization_id, name, name_key, is_system)
    select o.id, g.name, lower(g.name), g.name = 'Dashboard'
    from organizations o cross join (values ('Dashboard'), ('Sales'), ('Engineering')) as g(name)
    where o.site_name like ${prefix + '-%'}`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * `perOrg` users in each organisation: ~2% suspended, ~5% invited, a third never signed in;
 * a fifth are in Sales, a fifth in Engineering and one in a thousand in Dashboard.
 */
export async function seedUsers(
  db: Kysely<Database>,
  organizationIds: string[],
  perOrg: number,
): Promise<void> {
  for (const orgId of organizationIds) {
    await sql`
      insert into users (organization_id, email, first_name, last_name, name_key, status, created_at, last_sign_in_at)
      select ${orgId}::uuid,
        lower(f) || '.' || lower(l) || '.' || i || '@' || replace(${orgId}::text, '-', '') || '.example.com',
        f, l, lower(f || ' ' || l),
        case when i % 50 = 0 then 'suspended' when i % 20 = 0 then 'invited' else 'active' end,
        timestamptz '2024-01-01' + i * interval '7 minutes',
        case when i % 3 = 0 then null else timestamptz '2026-01-01' + ((i * 7919) % 500000) * interval '1 minute' end
      from (
        select i, (${sql.raw(FIRST)})[1 + (i * 17) % 40] as f, (${sql.raw(LAST)})[1 + (i * 31) % 30] as l
        from generate_series(1, ${perOrg}) as i
      ) as s`.execute(db);
    await sql`
      insert into group_members (group_id, user_id, organization_id)
      select g.id, u.id, u.organization_id
      from users u join groups g on g.organization_id = u.organization_id
      where u.organization_id = ${orgId}::uuid
        and ((g.name = 'Sales' and abs(hashtext(u.email)) % 5 = 0)
          or (g.name = 'Engineering' and abs(hashtext(u.email)) % 5 = 1)
          or (g.is_system and abs(hashtext(u.email)) % 1000 = 2))`.execute(db);
  }
  await sql`analyze`.execute(db);
}
