import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, setViewportWidth } from '../../../test-utils.tsx';
import AdminLayout, { sidebarDisplayClass, sidebarZone } from './admin-layout.tsx';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  setViewportWidth(1280);
});

function renderAdmin(path = '/dashboard') {
  return renderRoutes([{ element: <AdminLayout />, children: [{ path: '*', element: <p>page</p> }] }], path);
}

const sidebar = () => screen.getByTestId('sidebar');
const toggle = () => screen.getByRole('button', { name: 'Navigation menu' });

describe('sidebar zones', () => {
  it('is a drawer below 992 px, auto-collapsed from 992 to 1024 px, full above', () => {
    expect(sidebarZone(375)).toBe('drawer');
    expect(sidebarZone(991)).toBe('drawer');
    expect(sidebarZone(992)).toBe('auto-collapse');
    expect(sidebarZone(1024)).toBe('auto-collapse');
    expect(sidebarZone(1025)).toBe('wide');
  });

  it('shows collapseMenu as mobile-open below 992 px, otherwise as navbar-collapsed', () => {
    expect(sidebarDisplayClass(800, true)).toBe('mob-open');
    expect(sidebarDisplayClass(1280, true)).toBe('navbar-collapsed');
    expect(sidebarDisplayClass(800, false)).toBe('');
  });
});

describe('AdminLayout', () => {
  it('has the header: logo to /dashboard, a # toggle link, Apps to /application, the avatar', () => {
    setViewportWidth(1280);
    renderAdmin();
    expect(screen.getByRole('link', { name: 'Atrium admin home' })).toHaveProperty('pathname', '/dashboard');
    expect(screen.getByRole('img', { name: 'Atrium' }).getAttribute('width')).toBe('180');
    expect(toggle().getAttribute('href')).toBe('#');
    expect(within(screen.getByTestId('header-right')).getByRole('link', { name: 'Apps' })).toHaveProperty(
      'pathname',
      '/application',
    );
    expect(within(sidebar()).getByRole('link', { name: 'Apps' })).toHaveProperty('pathname', '/apps');
    expect(screen.getByRole('button', { name: 'Open profile panel' })).toBeTruthy();
  });

  it('below 992 px opens the drawer from the toggle and closes it when an item is clicked', () => {
    setViewportWidth(800);
    renderAdmin();
    expect(sidebar().className).not.toContain('mob-open');
    expect(toggle().getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle());
    expect(sidebar().className).toContain('mob-open');
    expect(toggle().getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(screen.getByRole('link', { name: 'Users' }));
    expect(sidebar().className).not.toContain('mob-open');
  });

  it('closes the drawer from its backdrop', () => {
    setViewportWidth(375);
    renderAdmin();
    fireEvent.click(toggle());
    fireEvent.click(screen.getByTestId('drawer-backdrop'));
    expect(sidebar().className).not.toContain('mob-open');
  });

  it('collapses automatically between 992 and 1024 px, and expands again wider', () => {
    setViewportWidth(1000);
    renderAdmin();
    expect(sidebar().className).toContain('navbar-collapsed');
    act(() => setViewportWidth(1280));
    expect(sidebar().className).not.toContain('navbar-collapsed');
    fireEvent.click(toggle());
    expect(sidebar().className).toContain('navbar-collapsed');
  });

  it('does not close the full sidebar when an item is clicked on wide screens', () => {
    setViewportWidth(1280);
    renderAdmin();
    fireEvent.click(screen.getByRole('link', { name: 'Users' }));
    expect(sidebar().className).not.toContain('navbar-collapsed');
  });
});

describe('header search', () => {
  it('expands on its button with the seed placeholder, 100px wide and hiding the right area below 600 px', () => {
    vi.useFakeTimers();
    setViewportWidth(375);
    renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    const input = screen.getByPlaceholderText('Search . . .');
    expect(input.style.width).toBe('100px');
    expect(screen.getByTestId('header-right').className).toContain('d-none');
    fireEvent.click(screen.getByRole('button', { name: 'Close search' }));
    // Its layout collapses 500 ms later.
    act(() => vi.advanceTimersByTime(499));
    expect(screen.queryByPlaceholderText('Search . . .')).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByPlaceholderText('Search . . .')).toBeNull();
    expect(screen.getByTestId('header-right').className).not.toContain('d-none');
  });

  it('keeps the right-hand header area from 600 px up', () => {
    setViewportWidth(768);
    renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    expect(screen.getByPlaceholderText('Search . . .').style.width).not.toBe('100px');
    expect(screen.getByTestId('header-right').className).not.toContain('d-none');
  });

  it('hides part of the header up to 575 px (Bootstrap sm)', () => {
    renderAdmin();
    expect(screen.getByTestId('header-org').className).toContain('d-none d-sm-inline-flex');
  });
});

// The server is asked after a pause in typing; a loaded machine may take a while to render.
const WAIT = { timeout: 5000 };
const USER_ID = '6f1c2a4e-0000-4000-8000-000000000001';
const GROUP_ID = '6f1c2a4e-0000-4000-8000-000000000002';

/** The server's search answer: a user and a group for "dom…", nothing for anything else. */
function stubSearch() {
  const fetch = vi.fn(async (url: string) => {
    const q = new URL(url, 'http://console.test').searchParams.get('q') ?? '';
    const found = q.startsWith('dom');
    return Response.json({
      users: found ? [{ id: USER_ID, label: 'Dominic Lee', secondary: 'dom@acme.test' }] : [],
      groups: found ? [{ id: GROUP_ID, label: 'Domain admins', secondary: null }] : [],
      domains: [],
      apps: [],
    });
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('header search results', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists matching pages at once, then the server's finds under their headings", async () => {
    setViewportWidth(1280);
    const fetch = stubSearch();
    renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    fireEvent.change(screen.getByPlaceholderText('Search . . .'), { target: { value: 'dom' } });
    expect(screen.getByRole('group', { name: 'Pages' }).textContent).toBe('PagesDomainAdd a domain');
    const users = await screen.findByRole('group', { name: 'Users' }, WAIT);
    expect(users.textContent).toBe('UsersDominic Leedom@acme.test');
    expect(screen.getByRole('group', { name: 'Groups' }).textContent).toBe('GroupsDomain admins');
    expect(screen.queryByRole('group', { name: 'Domains' })).toBeNull();
    expect(fetch).toHaveBeenCalledWith('/api/search?q=dom', expect.anything());
  });

  it('walks every result with the arrow keys and opens the active one on Enter', async () => {
    setViewportWidth(1280);
    stubSearch();
    const { router } = renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    const input = screen.getByRole('combobox');
    fireEvent.change(input, { target: { value: 'dom' } });
    await screen.findByRole('group', { name: 'Users' }, WAIT);
    const activeLabel = () =>
      document.getElementById(input.getAttribute('aria-activedescendant') ?? '')?.textContent;
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(activeLabel()).toBe('Domain');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(activeLabel()).toBe('Add a domain');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(activeLabel()).toBe('Dominic Leedom@acme.test');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(activeLabel()).toBe('Domain');
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(activeLabel()).toBe('Domain admins');
    expect(screen.getByRole('option', { name: 'Domain admins' }).getAttribute('aria-selected')).toBe('true');
    fireEvent.submit(input.closest('form')!);
    expect(router.state.location.pathname + router.state.location.search).toBe(`/groups?group=${GROUP_ID}`);
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('opens the first result on Enter when none is active', () => {
    setViewportWidth(1280);
    stubSearch();
    const { router } = renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    const input = screen.getByPlaceholderText('Search . . .');
    fireEvent.change(input, { target: { value: 'dom' } });
    fireEvent.submit(input.closest('form')!);
    expect(router.state.location.pathname).toBe('/domain');
  });

  it('says when nothing matches', async () => {
    stubSearch();
    renderAdmin();
    fireEvent.click(screen.getByRole('button', { name: 'Open search' }));
    fireEvent.change(screen.getByPlaceholderText('Search . . .'), { target: { value: 'zzz' } });
    expect(await screen.findByText('No results for “zzz”', {}, WAIT)).toBeTruthy();
  });
});
