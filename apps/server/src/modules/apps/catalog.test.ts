import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config.ts';
import { fillPlaceholders, loadAppCatalog } from './catalog.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'atrium-catalog-'));
function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('app catalog', () => {
  it('has the built-in templates of PRODUCT.md §4.8 when no file is set', () => {
    const catalog = loadAppCatalog(undefined);
    expect(catalog.templates.map((t) => t.key)).toEqual([
      'cloud-storage',
      'mail',
      'chat',
      'office',
      'wiki',
      'project-management',
      'calendar-contacts',
      'custom',
    ]);
    expect(catalog.find('cloud-storage')?.launchUrl).toBe('{siteUrl}');
    for (const t of catalog.templates) expect(t.image).toBe(`/apps/${t.key}.svg`);
  });

  it('merges a YAML file over the defaults by key', () => {
    const catalog = loadAppCatalog(
      file(
        'catalog.yaml',
        [
          'apps:',
          '  - key: wiki',
          '    title: Team Wiki',
          '    image: /apps/wiki.svg',
          '    color: "#123456"',
          '  - key: crm',
          '    title: CRM',
          '    image: https://cdn.example.com/crm.svg',
          '    color: "#abcdef"',
          '    redirectUris: ["{launchUrl}/callback"]',
        ].join('\n'),
      ),
    );
    expect(catalog.find('wiki')?.title).toBe('Team Wiki');
    expect(catalog.find('crm')?.redirectUris).toEqual(['{launchUrl}/callback']);
    expect(catalog.find('mail')?.title).toBe('Mail');
  });

  it('requires PKCE of every template but the Mail one (Roundcube 1.6 sends none) unless a file says so', () => {
    const defaults = loadAppCatalog(undefined);
    expect(defaults.templates.filter((t) => !t.requirePkce).map((t) => t.key)).toEqual(['mail']);
    const catalog = loadAppCatalog(
      file(
        'pkce.yaml',
        [
          'apps:',
          '  - key: old-webmail',
          '    title: Old webmail',
          '    image: /apps/mail.svg',
          '    color: "#123456"',
          '    requirePkce: false',
          '  - key: crm',
          '    title: CRM',
          '    image: /apps/custom.svg',
          '    color: "#abcdef"',
        ].join('\n'),
      ),
    );
    expect(catalog.find('old-webmail')?.requirePkce).toBe(false);
    expect(catalog.find('crm')?.requirePkce).toBe(true);
  });

  it('can replace the defaults entirely (JSON)', () => {
    const catalog = loadAppCatalog(
      file(
        'only.json',
        JSON.stringify({
          includeDefaults: false,
          apps: [{ key: 'crm', title: 'CRM', image: '/apps/custom.svg', color: '#000000' }],
        }),
      ),
    );
    expect(catalog.templates.map((t) => t.key)).toEqual(['crm']);
  });

  it('names the file and the field that is wrong', () => {
    const bad = file(
      'bad.json',
      JSON.stringify({ apps: [{ key: 'crm', title: 'CRM', image: '/x.svg', color: 'red' }] }),
    );
    expect(() => loadAppCatalog(bad)).toThrow(ConfigError);
    expect(() => loadAppCatalog(bad)).toThrow(
      `Invalid setting APP_CATALOG: ${bad}: field apps[0].color: expected a colour such as #0ea5e9`,
    );
  });

  it('refuses a missing title, a duplicate key and a file that does not parse', () => {
    const noTitle = file('no-title.yaml', 'apps:\n  - key: crm\n    image: /x.svg\n    color: "#000000"\n');
    expect(() => loadAppCatalog(noTitle)).toThrow(`${noTitle}: field apps[0].title: expected a text`);
    const twice = file(
      'twice.json',
      JSON.stringify({
        apps: [0, 1].map(() => ({ key: 'crm', title: 'CRM', image: '/x.svg', color: '#000000' })),
      }),
    );
    expect(() => loadAppCatalog(twice)).toThrow(`${twice}: field apps[1].key: "crm" is listed twice`);
    const broken = file('broken.json', '{ "apps": [');
    expect(() => loadAppCatalog(broken)).toThrow(`${broken}: is not valid JSON`);
    const notList = file('not-list.yaml', 'apps: 3\n');
    expect(() => loadAppCatalog(notList)).toThrow(`${notList}: field apps: expected a list of apps`);
  });

  it('refuses an unknown client authentication method', () => {
    const bad = file(
      'auth.json',
      JSON.stringify({
        apps: [
          { key: 'crm', title: 'CRM', image: '/x.svg', color: '#000000', tokenEndpointAuthMethod: 'none' },
        ],
      }),
    );
    expect(() => loadAppCatalog(bad)).toThrow(
      `${bad}: field apps[0].tokenEndpointAuthMethod: expected client_secret_basic or client_secret_post`,
    );
  });

  it('fills known placeholders and leaves the others', () => {
    expect(fillPlaceholders('{launchUrl}/cb?x={other}', { launchUrl: 'https://a.example' })).toBe(
      'https://a.example/cb?x={other}',
    );
  });
});
