import { MAX_SEATS } from '@atrium/contracts/subscriptions';
import { z } from 'zod';
import { ConfigError, type Config } from '../../config.ts';
import { catalogKey, catalogTitle, readCatalogFile } from '../../lib/catalog-file.ts';
import { loadAppCatalog } from '../apps/catalog.ts';
import { BUILT_IN_DEFAULT_PLAN, BUILT_IN_PLANS } from './plan-catalog-defaults.ts';

const count = (what: string, max: number) =>
  z
    .number({ message: `expected a number of ${what}` })
    .int('expected a whole number')
    .min(0, 'expected 0 or more')
    .max(max, `expected at most ${max}`);

const planSchema = z
  .object({
    key: catalogKey(),
    title: catalogTitle(60),
    description: z.string({ message: 'expected a text' }).max(300, 'at most 300 characters').default(''),
    /** The most seats an organisation may have on the plan; null: as many as it buys. */
    seatLimit: count('seats', MAX_SEATS).min(1, 'expected at least 1').nullable().default(null),
    /** Shown beside the plan; Atrium takes no payments, so it is only a label. */
    pricePerSeat: z
      .string({ message: 'expected a text such as "$6 per user / month"' })
      .max(60, 'at most 60 characters')
      .nullable()
      .default(null),
    /** Seats a subscription starts with on this plan. */
    defaultSeats: count('seats', MAX_SEATS).min(1, 'expected at least 1').default(10),
    /** The mail plan: storage per mailbox, in MiB. */
    mailboxQuotaMb: count('MiB', 10_000_000).min(1, 'expected at least 1'),
    maxDomains: count('domains', 10_000).min(1, 'expected at least 1'),
    /**
     * Sending limits (issue 44): recipients per hour a user, and the whole organisation, may send
     * to through submission; past them a message is held with a 4xx and the admins are told.
     */
    sendPerUserPerHour: count('recipients', 1_000_000).min(1, 'expected at least 1').default(300),
    sendPerOrganizationPerHour: count('recipients', 10_000_000).min(1, 'expected at least 1').default(3000),
    /** App template keys of APP_CATALOG, or "all". */
    apps: z.union([z.literal('all'), z.array(z.string({ message: 'expected an app key' }))], {
      message: 'expected "all" or a list of app keys',
    }),
    /** 0: no trial; a new subscription on the plan is active at once. */
    trialDays: count('days', 365).default(0),
  })
  .refine((plan) => plan.seatLimit === null || plan.defaultSeats <= plan.seatLimit, {
    message: 'must not be more than seatLimit',
    path: ['defaultSeats'],
  });

/** One plan of the catalog, as the operator wrote it. */
export type CatalogPlan = z.output<typeof planSchema>;

const fileSchema = z.object(
  {
    /** false: the file's plans replace the built-in ones instead of adding to / overriding them. */
    includeDefaults: z.boolean({ message: 'expected true or false' }).default(true),
    /** The plan new organisations start on. */
    defaultPlan: z.string({ message: 'expected a plan key' }).optional(),
    plans: z.array(planSchema, { message: 'expected a list of plans' }),
  },
  { message: 'expected an object with a "plans" list' },
);

export interface AppTemplateName {
  key: string;
  title: string;
}

export interface PlanCatalog {
  plans: CatalogPlan[];
  /** The app catalog's templates, in its order: what a plan's `apps` may name. */
  appTemplates: AppTemplateName[];
  defaultPlan: CatalogPlan;
  find(key: string): CatalogPlan | undefined;
  /**
   * The plan a subscription is on; a key the operator has since removed from the file counts as
   * the default plan, so its organisations keep working until someone moves them.
   */
  planOf(key: string): CatalogPlan;
}

function catalogOf(plans: CatalogPlan[], defaultKey: string, appTemplates: AppTemplateName[]): PlanCatalog {
  const byKey = new Map(plans.map((p) => [p.key, p]));
  const defaultPlan = byKey.get(defaultKey)!;
  return {
    plans,
    appTemplates,
    defaultPlan,
    find: (key) => byKey.get(key),
    planOf: (key) => byKey.get(key) ?? defaultPlan,
  };
}

/**
 * The built-in plans, or the operator's file (PLAN_CATALOG, JSON or YAML) merged over them by
 * key. `appTemplates` are the app catalog's: a plan naming another app is a mistake. Read
 * at start-up; a bad file stops start-up with a ConfigError naming the file and the field.
 */
export function loadPlanCatalog(file: string | undefined, appTemplates: AppTemplateName[]): PlanCatalog {
  const fail = (problem: string) => new ConfigError('PLAN_CATALOG', `${file ?? 'built-in'}: ${problem}`);
  let plans = BUILT_IN_PLANS;
  let defaultKey = BUILT_IN_DEFAULT_PLAN;
  if (file) {
    const data = readCatalogFile('PLAN_CATALOG', file, fileSchema, (d) => ({
      list: 'plans',
      keys: d.plans.map((plan) => plan.key),
    }));
    const merged = new Map((data.includeDefaults ? BUILT_IN_PLANS : []).map((p) => [p.key, p]));
    for (const plan of data.plans) merged.set(plan.key, plan);
    plans = [...merged.values()];
    if (plans.length === 0) throw fail('field plans: lists no plans');
    defaultKey = data.defaultPlan ?? (merged.has(defaultKey) ? defaultKey : plans[0]!.key);
    if (!merged.has(defaultKey)) {
      throw fail(
        `field defaultPlan: "${defaultKey}" is not one of the plans (${[...merged.keys()].join(', ')})`,
      );
    }
    const known = new Set(appTemplates.map((t) => t.key));
    data.plans.forEach((plan, index) => {
      if (plan.apps === 'all') return;
      const unknown = plan.apps.findIndex((key) => !known.has(key));
      if (unknown >= 0) {
        throw fail(
          `field plans[${index}].apps[${unknown}]: "${plan.apps[unknown]}" is not an app of the app catalog`,
        );
      }
    });
  }
  return catalogOf(plans, defaultKey, appTemplates);
}

const loaded = new WeakMap<object, PlanCatalog>();

/**
 * The catalog of these settings, read once per Config (the server's, the CLI's, a test's):
 * callers deep inside (creating an organisation) need it without every caller passing it along.
 */
export function planCatalogOf(config: Pick<Config, 'planCatalog' | 'appCatalog'>): PlanCatalog {
  let catalog = loaded.get(config);
  if (!catalog) {
    const templates = loadAppCatalog(config.appCatalog).templates.map(({ key, title }) => ({ key, title }));
    catalog = loadPlanCatalog(config.planCatalog, templates);
    loaded.set(config, catalog);
  }
  return catalog;
}

/** Whether the plan lets an organisation install this app template. */
export function planIncludesApp(plan: CatalogPlan, templateKey: string): boolean {
  return plan.apps === 'all' || plan.apps.includes(templateKey);
}
