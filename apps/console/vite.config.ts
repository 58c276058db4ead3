import react from '@vitejs/plugin-react';
import { defineConfig, type PluginOption } from 'vite';
import { chunkOf, preloadChunks } from './vite-chunks.ts';
import { precompress } from './vite-precompress.ts';
import { routePages } from './vite-route-pages.ts';
import { routes } from './src/lib/paths.ts';

// The pages people open first: sign-in, the admin's landing page and the apps page.
// Their loaders read the session (and the dashboard the setup progress) before anything renders.
const firstPages = {
  [routes.login]: { modules: ['src/app/routes/login.tsx'] },
  [routes.dashboard]: {
    modules: ['src/app/layouts/admin/admin-layout.tsx', 'src/app/routes/dashboard.tsx'],
    reads: ['/api/session', '/api/setup'],
  },
  [routes.application]: {
    modules: ['src/app/layouts/apps/apps-layout.tsx', 'src/app/routes/application.tsx'],
    reads: ['/api/session'],
  },
};

// The built console is served by the Atrium server at / (SPA fallback), same origin as /api.
export default defineConfig({
  // The hoisted plugin is typed against the root's Vite (pulled in by Vitest), this workspace builds
  // with its own Vite 7; the plugin supports both, only their type declarations differ.
  plugins: [
    react() as unknown as PluginOption,
    preloadChunks(['ui', 'icons']),
    routePages(firstPages),
    precompress(),
  ],
  base: '/',
  css: {
    preprocessorOptions: {
      // Bootstrap 5.3's Sass still uses @import and global functions, which Dart Sass warns about
      // on every build; those warnings are Bootstrap's to fix.
      scss: {
        quietDeps: true,
        silenceDeprecations: ['import', 'global-builtin', 'color-functions', 'if-function'],
      },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: { output: { manualChunks: chunkOf } },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': 'http://localhost:8080',
      '/oidc': 'http://localhost:8080',
    },
  },
  preview: { port: 4173 },
});
