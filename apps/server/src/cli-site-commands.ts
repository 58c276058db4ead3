import path from 'node:path';
import { parseArgs } from 'node:util';
import { emailField } from '@atrium/contracts/auth';
import { siteNameProblem } from '@atrium/contracts/signup';
import { MAX_SEATS, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '@atrium/contracts/subscriptions';
import { UsageError } from './cli-usage-error.ts';
import { loadConfig } from './config.ts';
import { openDatabase as openConfiguredDatabase } from './db/connect.ts';
import { tightenPermissions } from './db/data-dir.ts';
import { AppError } from './lib/errors.ts';
import { readOutbox } from './lib/mail.ts';
import { hashPassword, passwordProblem } from './lib/passwords.ts';
import { siteNameDnsProblem } from './modules/dns-updates/site-name-check.ts';
import { MailConfigProblem, mailConfigCommand } from './modules/mail/config/mail-config.command.ts';
import { createOrganization } from './modules/organizations/create-organization.ts';
import { deleteOrganization } from './modules/organizations/delete-organization.ts';
import { organizationBySite } from './modules/subscriptions/subscriptions.repository.ts';
import { setPlanAsOperator } from './modules/subscriptions/subscriptions.service.ts';
import { rotateSigningKeys } from './oidc/keys.ts';

/**
 * The commands that work on the database or the settings (cli.ts loads this file only for them:
 * the operator's host commands, doctor above all, start without the database driver).
 * Returns false for a command it does not know.
 */
export async function runSiteCommand(command: string, rest: string[]): Promise<boolean> {
  if (command === 'create-organization') await createOrganizationCommand(rest);
  else if (command === 'delete-organization') await deleteOrganizationCommand(rest);
  else if (command === 'rotate-keys') await rotateKeysCommand();
  else if (command === 'outbox') await outboxCommand(rest);
  else if (command === 'set-plan') await setPlanCommand(rest);
  else if (command === 'webhook-log') await webhookLogCommand(rest);
  else if (command === 'mail-config') {
    try {
      await mailConfigCommand(rest, () => loadConfig());
    } catch (error) {
      throw error instanceof MailConfigProblem ? new UsageError(error.message) : error;
    }
  } else return false;
  return true;
}

async function openDatabase() {
  const config = loadConfig();
  const { db: opened, tightened } = await openConfiguredDatabase(config);
  if (tightened > 0) {
    console.warn(
      `DATA_DIR ${config.dataDir}: tightened permissions on ${tightened} entries ` +
        'that other users could read (now directories 0700, files 0600)',
    );
  }
  const close = async () => {
    await opened.destroy();
    // PGlite sets the modes of some files it writes itself; leave none readable by others.
    if (!config.databaseUrl) tightenPermissions(path.join(config.dataDir, 'pgdata'));
  };
  return { config, db: opened, close };
}

async function createOrganizationCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      site: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
    strict: true,
  });
  const name = values.name?.trim();
  if (!name) throw new UsageError('--name is required: the organisation name');
  const site = values.site?.trim().toLowerCase() ?? '';
  const siteProblem = siteNameProblem(site);
  if (siteProblem) throw new UsageError(`--site: ${siteProblem}`);
  const email = emailField.safeParse(values.email ?? '');
  if (!email.success) throw new UsageError(`--email: ${email.error.issues[0]!.message}`);
  const problem = passwordProblem(values.password ?? '');
  if (problem) throw new UsageError(`--password: ${problem}`);

  const { config, db, close } = await openDatabase();
  try {
    // A host of the deployment or a name the zone already has: its site record would not be published.
    const dnsProblem = await siteNameDnsProblem(config, site);
    if (dnsProblem) throw new UsageError(`--site: ${dnsProblem} (${site}.${config.siteBaseDomain})`);
    const created = await createOrganization(db, config, {
      name,
      siteName: site,
      admin: {
        email: email.data.toLowerCase(),
        firstName: values['first-name']?.trim() || 'Admin',
        lastName: values['last-name']?.trim() ?? '',
        passwordHash: await hashPassword(values.password!),
      },
    });
    console.log(
      `Created organisation "${name}" (${created.organizationId}), site ${site}.${config.siteBaseDomain}`,
    );
    console.log(
      `Its admin ${email.data.toLowerCase()} can sign in at ${new URL('/login', config.publicUrl).href}`,
    );
  } catch (error) {
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'organizations_site_name_key') {
      throw new UsageError(`--site: the site name "${site}" is already taken`);
    }
    if (e.code === '23505' && e.constraint === 'users_email_key') {
      throw new UsageError(`--email: ${email.data} is already registered`);
    }
    throw error;
  } finally {
    await close();
  }
}

/** Deletes an organisation with all its users, groups, apps and data; its site record goes too. */
async function deleteOrganizationCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { site: { type: 'string' }, yes: { type: 'boolean' } },
    strict: true,
  });
  const site = values.site?.trim().toLowerCase();
  if (!site) throw new UsageError('--site is required: the site name of the organisation to delete');
  if (!values.yes) {
    throw new UsageError(`--yes is required: deleting ${site} removes all its users, groups, apps and data`);
  }
  const { config, db, close } = await openDatabase();
  try {
    const deleted = await deleteOrganization(db, config, site);
    if (!deleted) throw new UsageError(`--site: no organisation has the site name "${site}"`);
    console.log(
      `Deleted organisation "${deleted.name}" (${deleted.organizationId}), site ${site}.${config.siteBaseDomain}`,
    );
    if (config.dnsUpdate) console.log('The server removes its DNS record with its next job run.');
  } finally {
    await close();
  }
}

async function rotateKeysCommand(): Promise<void> {
  const { config, db, close } = await openDatabase();
  try {
    const kid = await rotateSigningKeys(db, config);
    console.log(
      `New signing key ${kid}. Restart the servers to sign with it; the old keys stay published for 7 days.`,
    );
  } finally {
    await close();
  }
}

/** Prints the outbox (mail kept without SMTP_URL), newest first; bodies are sealed at rest. */
async function outboxCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, limit: { type: 'string' } },
    strict: true,
  });
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit: a whole number from 1');
  const { config, db, close } = await openDatabase();
  try {
    const messages = await readOutbox(db, config, { to: values.to, limit });
    if (messages.length === 0) console.log('The outbox is empty.');
    for (const m of messages) {
      console.log(`${m.createdAt.toISOString()}  to ${m.to}  "${m.subject}"\n\n${m.text.trimEnd()}\n`);
    }
  } finally {
    await close();
  }
}

/**
 * The operator's (or the billing system's) word on an organisation's subscription: plan, seats,
 * status. Recorded in its history and sent to the webhook like any change.
 */
async function setPlanCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      site: { type: 'string' },
      plan: { type: 'string' },
      seats: { type: 'string' },
      status: { type: 'string' },
    },
    strict: true,
  });
  const site = values.site?.trim().toLowerCase();
  if (!site) throw new UsageError('--site is required: the site name of the organisation');
  const planKey = values.plan?.trim();
  if (!planKey) throw new UsageError('--plan is required: the key of a plan of the plan catalog');
  let seats: number | undefined;
  if (values.seats !== undefined) {
    seats = Number(values.seats);
    if (!Number.isInteger(seats) || seats < 1 || seats > MAX_SEATS) {
      throw new UsageError(`--seats: a whole number from 1 to ${MAX_SEATS}`);
    }
  }
  const status = values.status?.trim();
  if (status !== undefined && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status: one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
  }
  const { config, db, close } = await openDatabase();
  try {
    const organization = await organizationBySite(db, site);
    if (!organization) throw new UsageError(`--site: no organisation has the site name "${site}"`);
    const result = await setPlanAsOperator({ db, config }, organization.id, {
      planKey,
      seats,
      status: status as SubscriptionStatus | undefined,
    }).catch((error: unknown) => {
      if (error instanceof AppError && error.fields) {
        const [field, problem] = Object.entries(error.fields)[0]!;
        throw new UsageError(`--${field}: ${problem}`);
      }
      throw error;
    });
    const { state } = result;
    console.log(
      `${result.changed ? 'Set' : 'Unchanged:'} ${site} on ${result.plan.title} (${state.plan_key}), ` +
        `${state.seats} seats (${result.seatsUsed} used), ${state.status}` +
        (state.trial_ends_at ? `, trial until ${state.trial_ends_at.toISOString().slice(0, 10)}` : '') +
        (state.renews_at ? `, renews ${state.renews_at.toISOString().slice(0, 10)}` : ''),
    );
    if (result.seatsUsed > state.seats) {
      console.warn(
        `Warning: ${result.seatsUsed} users hold seats, more than ${state.seats}; no user can be added until enough are removed.`,
      );
    }
    if (result.changed && config.subscriptionWebhook) {
      console.log('The server sends the change to SUBSCRIPTION_WEBHOOK_URL with its next job run.');
    }
  } finally {
    await close();
  }
}

/** The subscription webhook's deliveries, newest first: event, outcome, tries. */
async function webhookLogCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { site: { type: 'string' }, limit: { type: 'string' } },
    strict: true,
  });
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit: a whole number from 1');
  const { db, close } = await openDatabase();
  try {
    let query = db
      .selectFrom('subscription_webhook_deliveries as d')
      .innerJoin('organizations as o', 'o.id', 'd.organization_id')
      .select([
        'd.id',
        'd.event',
        'd.status',
        'd.attempts',
        'd.last_status_code',
        'd.last_error',
        'd.created_at',
        'o.site_name',
      ])
      .orderBy('d.created_at', 'desc')
      .limit(limit);
    const site = values.site?.trim().toLowerCase();
    if (site) query = query.where('o.site_name', '=', site);
    const rows = await query.execute();
    if (rows.length === 0) console.log('No webhook deliveries.');
    for (const r of rows) {
      const outcome = r.status === 'delivered' ? `delivered (${r.last_status_code})` : r.status;
      console.log(
        `${r.created_at.toISOString()}  ${r.site_name}  ${r.event}  ${outcome}  tries ${r.attempts}` +
          (r.status !== 'delivered' && r.last_error ? `  ${r.last_error}` : '') +
          `  ${r.id}`,
      );
    }
  } finally {
    await close();
  }
}
