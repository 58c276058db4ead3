import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import AccessDeniedPage from '../../../app/routes/access-denied.tsx';
import { renderAt } from '../../../test-utils.tsx';
import { redirectUrisFor } from './app-form.tsx';
import { AppTiles } from './app-tiles.tsx';

const wiki = {
  id: '6f1c2f7e-0000-4000-8000-000000000001',
  title: 'Wiki',
  value: 'wiki',
  app_id: 'client-1',
  image: '/apps/wiki.svg',
  alt: 'Wiki',
  color: '#10b981',
  url: 'https://wiki.example.com',
};

describe('app tiles', () => {
  it('open the launch URL in a new tab without giving the app the opener', () => {
    renderAt(<AppTiles apps={[wiki]} />);
    const tile = screen.getByRole('link', { name: /Wiki/ });
    expect(tile.getAttribute('href')).toBe('https://wiki.example.com');
    expect(tile.getAttribute('target')).toBe('_blank');
    expect(tile.getAttribute('rel')).toBe('noopener');
    expect(screen.getByRole('img', { name: 'Wiki' }).getAttribute('src')).toBe('/apps/wiki.svg');
  });
});

describe('the access page', () => {
  it('names the app the user may not open', () => {
    renderAt(<AccessDeniedPage />, '/access-denied?app=Team%20Wiki');
    expect(screen.getByText("You don't have access to Team Wiki. Ask your administrator.")).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to your apps' }).getAttribute('href')).toBe('/application');
  });
});

describe('redirect URIs from a template', () => {
  it('follow the launch URL, without a doubled slash', () => {
    expect(redirectUrisFor(['{launchUrl}/oidc/callback'], 'https://wiki.example.com/')).toEqual([
      'https://wiki.example.com/oidc/callback',
    ]);
  });
});
