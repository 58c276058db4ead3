import type { SignupState } from '@atrium/contracts/signup';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAt } from '../../../test-utils.tsx';
import { SiteStage } from './site-stage.tsx';

const state: SignupState = {
  stage: 'site',
  organizationName: null,
  siteName: null,
  siteUrl: null,
  siteBaseDomain: 'atrium.test',
  email: null,
  codeExpiresAt: null,
  resendAvailableAt: null,
};

function mockServer() {
  const posts: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === 'POST') posts.push(url);
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'nope' } }), {
        status: 404,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
  return posts;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('SiteStage', () => {
  it.each([
    ['xn--bcher-kva', 'Do not start with “xn--”, the prefix of encoded international names'],
    ['autoconfig', 'This site name is reserved. Choose another one'],
    ['mta-sts', 'This site name is reserved. Choose another one'],
  ])('refuses %j under the field before sending anything', async (siteName, message) => {
    const posts = mockServer();
    renderAt(<SiteStage state={state} />);
    fireEvent.change(screen.getByLabelText('Organisation name'), { target: { value: 'Acme' } });
    fireEvent.change(screen.getByLabelText('Site name'), { target: { value: siteName } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));

    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.getByLabelText('Site name').classList.contains('is-invalid')).toBe(true);
    expect(posts).toEqual([]);
  });
});
