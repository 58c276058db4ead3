import './lib/zod-without-eval.ts';
import './styles/bootstrap.scss';
import './styles/app.css';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { Providers } from './app/providers.tsx';
import { createRouter } from './app/router.tsx';
import { reloadPagesRestoredFromCache } from './features/auth/require-session.ts';
import { installPreloadErrorReload } from './lib/preload-error.ts';

const router = createRouter();
installPreloadErrorReload({
  pendingUrl: () => {
    const next = router.state.navigation.location;
    return next ? `${next.pathname}${next.search}${next.hash}` : undefined;
  },
});

// After sign-out, the back button must not show a console page kept in the browser's cache.
reloadPagesRestoredFromCache();

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

// The first render as a transition: React yields to the browser every few milliseconds instead
// of holding the main thread for the whole page (on a slow phone, most of a second of input delay).
const root = createRoot(container);
startTransition(() => {
  root.render(
    <StrictMode>
      <Providers>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  );
});
