import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config.ts';
import { loadPlanCatalog, planIncludesApp } from './plan-catalog.ts';

const APPS = ['cloud-storage', 'mail', 'chat', 'office', 'wiki', 'project-management', 'custom'].map(
  (key) => ({ key, title: key }),
);
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-plans-'));
function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('plan catalog', () => {
  it('has Free, Business and Enterprise built in, Business the default', () => {
    const catalog = loadPlanCatalog(undefined, APPS);
    expect(catalog.plans.map((p) => p.key)).toEqual(['free', 'business', 'enterprise']);
    expect(catalog.defaultPlan.key).toBe('business');
    expect(catalog.defaultPlan.trialDays).toBe(14);
    expect(planIncludesApp(catalog.find('free')!, 'wiki')).toBe(false);
    expect(planIncludesApp(catalog.find('free')!, 'chat')).toBe(true);
    expect(planIncludesApp(catalog.find('business')!, 'wiki')).toBe(true);
    // A plan since removed from the file counts as the default one.
    expect(catalog.planOf('gone').key).toBe('business');
  });

  it('merges a YAML file over the built-in plans by key and picks its default', () => {
    const catalog = loadPlanCatalog(
      file(
        'plans.yaml',
        [
          'defaultPlan: starter',
          'plans:',
          '  - key: starter',
          '    title: Starter',
          '    seatLimit: 20',
          '    pricePerSeat: "€4 per user / month"',
          '    defaultSeats: 3',
          '    mailboxQuotaMb: 10240',
          '    maxDomains: 2',
          '    apps: [mail, wiki]',
          '    trialDays: 30',
          '  - key: free',
          '    title: Community',
          '    mailboxQuotaMb: 1024',
          '    maxDomains: 1',
          '    apps: all',
        ].join('\n'),
      ),
      APPS,
    );
    expect(catalog.plans.map((p) => p.key)).toEqual(['free', 'business', 'enterprise', 'starter']);
    expect(catalog.defaultPlan).toMatchObject({ key: 'starter', defaultSeats: 3, trialDays: 30 });
    expect(catalog.find('free')).toMatchObject({ title: 'Community', seatLimit: null, trialDays: 0 });
  });

  it('can replace the built-in plans entirely (JSON); the first plan is then the default', () => {
    const catalog = loadPlanCatalog(
      file(
        'only.json',
        JSON.stringify({
          includeDefaults: false,
          plans: [{ key: 'team', title: 'Team', mailboxQuotaMb: 2048, maxDomains: 3, apps: 'all' }],
        }),
      ),
      APPS,
    );
    expect(catalog.plans.map((p) => p.key)).toEqual(['team']);
    expect(catalog.defaultPlan.key).toBe('team');
  });

  it('stops start-up naming the file and the field of a mistake', () => {
    const cases: Array<[string, string, string]> = [
      ['broken.json', '{', 'is not valid JSON'],
      ['no-plans.yaml', 'defaultPlan: free', 'field plans: expected a list of plans'],
      [
        'no-title.yaml',
        'plans:\n  - key: team\n    mailboxQuotaMb: 1\n    maxDomains: 1\n    apps: all',
        'field plans[0].title: expected a text',
      ],
      [
        'bad-quota.yaml',
        'plans:\n  - key: team\n    title: Team\n    mailboxQuotaMb: lots\n    maxDomains: 1\n    apps: all',
        'field plans[0].mailboxQuotaMb: expected a number of MiB',
      ],
      [
        'seats.yaml',
        'plans:\n  - key: team\n    title: Team\n    seatLimit: 5\n    defaultSeats: 6\n    mailboxQuotaMb: 1\n    maxDomains: 1\n    apps: all',
        'field plans[0].defaultSeats: must not be more than seatLimit',
      ],
      [
        'unknown-app.yaml',
        'plans:\n  - key: team\n    title: Team\n    mailboxQuotaMb: 1\n    maxDomains: 1\n    apps: [mail, crm]',
        'field plans[0].apps[1]: "crm" is not an app of the app catalog',
      ],
      [
        'default.yaml',
        'defaultPlan: gold\nplans:\n  - key: team\n    title: Team\n    mailboxQuotaMb: 1\n    maxDomains: 1\n    apps: all',
        'field defaultPlan: "gold" is not one of the plans (free, business, enterprise, team)',
      ],
      [
        'twice.yaml',
        'plans:\n  - {key: a, title: A, mailboxQuotaMb: 1, maxDomains: 1, apps: all}\n  - {key: a, title: B, mailboxQuotaMb: 1, maxDomains: 1, apps: all}',
        'field plans[1].key: "a" is listed twice',
      ],
    ];
    for (const [name, text, problem] of cases) {
      const p = file(name, text);
      expect(() => loadPlanCatalog(p, APPS)).toThrow(ConfigError);
      expect(() => loadPlanCatalog(p, APPS)).toThrow(`Invalid setting PLAN_CATALOG: ${p}: ${problem}`);
    }
  });
});
