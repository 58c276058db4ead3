import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { LayoutProvider } from './app/layouts/admin/layout-context.tsx';
import { createQueryClient } from './lib/query-client.ts';

/** Render routes at a path with the console's providers, in memory. */
export function renderRoutes(routes: RouteObject[], path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = render(
    <QueryClientProvider client={createQueryClient()}>
      <LayoutProvider>
        <RouterProvider router={router} />
      </LayoutProvider>
    </QueryClientProvider>,
  );
  return { ...result, router };
}

/** Render one element at a path. */
export function renderAt(element: ReactElement, path = '/') {
  return renderRoutes([{ path: '*', element }], path);
}

export function setViewportWidth(width: number): void {
  Object.defineProperty(window, 'innerWidth', { configurable: true, writable: true, value: width });
  window.dispatchEvent(new Event('resize'));
}
