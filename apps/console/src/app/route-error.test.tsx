import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../test-utils.tsx';
import { describeRouteError, RouteError } from './route-error.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('router error screen', () => {
  it('shows the status and its text for a thrown response', async () => {
    renderRoutes(
      [
        {
          path: '/',
          loader: () => {
            throw new Response('', { status: 503, statusText: 'Service Unavailable' });
          },
          element: <p>never</p>,
          HydrateFallback: () => null,
          ErrorBoundary: RouteError,
        },
      ],
      '/',
    );
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeTruthy();
    expect(screen.getByTestId('route-error-detail').textContent).toBe('503 Service Unavailable');
  });

  it('shows the message of a thrown error', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    function Boom(): never {
      throw new Error('Kaboom');
    }
    renderRoutes([{ path: '/', element: <Boom />, ErrorBoundary: RouteError }], '/');
    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeTruthy();
    expect(screen.getByTestId('route-error-detail').textContent).toBe('Kaboom');
  });

  it('describes other values', () => {
    expect(describeRouteError('plain')).toBe('plain');
    expect(describeRouteError(42)).toBe('Unknown error');
  });
});
