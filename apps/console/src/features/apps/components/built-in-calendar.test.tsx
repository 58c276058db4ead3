import type { AppTemplate, InstalledApp } from '@atrium/contracts/apps';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { BuiltInCalendar, WEB_CALENDAR_SUMMARY } from './built-in-calendar.tsx';
import { CatalogCard } from './catalog-card.tsx';

const calendar: AppTemplate = {
  key: 'calendar-contacts',
  title: 'Calendar & Contacts',
  description: 'Everyone gets calendars and contacts on their phones and computers; nothing to install.',
  image: '/apps/calendar-contacts.svg',
  color: '#0d9488',
  launchUrl: '',
  redirectUriTemplates: ['{launchUrl}/oidc/callback'],
  postLogoutRedirectUriTemplates: ['{launchUrl}/'],
  setupInstructions:
    'Everyone in your organisation already has calendars and contacts; there is nothing to install.\nEach person opens Profile → Set up a device, chooses their phone or computer and follows the steps there.',
  tokenEndpointAuthMethod: 'client_secret_basic',
  issuer: 'https://atrium.test/oidc',
  discoveryUrl: 'https://atrium.test/oidc/.well-known/openid-configuration',
  configSnippet: 'OIDC_ISSUER=https://atrium.test/oidc',
  configSnippetLanguage: 'env',
};

describe('the Calendar & Contacts catalog entry', () => {
  afterEach(cleanup);

  it('is built in: its card links to Set up a device and to how it works, not to an install', () => {
    renderAt(<CatalogCard template={calendar} installed={[]} />);
    expect(screen.getByText('Built in')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Set up a device' }).getAttribute('href')).toBe(
      '/profile/devices',
    );
    expect(screen.getByRole('link', { name: 'How Calendar & Contacts works' }).getAttribute('href')).toBe(
      '/apps/install/calendar-contacts',
    );
    expect(screen.queryByRole('link', { name: 'Install Calendar & Contacts' })).toBeNull();
  });

  it('once installed for a web calendar, is managed like any app', () => {
    const installed = { id: 'a1', title: 'Calendar' } as InstalledApp;
    renderAt(<CatalogCard template={calendar} installed={[installed]} />);
    expect(screen.getByText('Installed')).toBeTruthy();
    expect(screen.queryByText('Built in')).toBeNull();
    expect(screen.getByRole('link', { name: 'Manage Calendar' }).getAttribute('href')).toBe('/apps/a1');
  });

  it('explains in plain words how people get calendars, the web calendar under "Advanced"', () => {
    renderAt(<BuiltInCalendar template={calendar} advanced={<p>the install form</p>} />);
    expect(screen.getByRole('heading', { name: 'How people get calendars and contacts' })).toBeTruthy();
    expect(screen.getByText(/Each person opens Profile → Set up a device/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Set up a device' }).getAttribute('href')).toBe(
      '/profile/devices',
    );
    const advanced = screen.getByText(WEB_CALENDAR_SUMMARY).closest('details')!;
    expect(advanced.open).toBe(false);
    expect(advanced.textContent).toContain('the install form');
  });
});
