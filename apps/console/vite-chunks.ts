import type { Plugin } from 'vite';

/**
 * Rollup gives every module that two lazy routes share a chunk of its own: one file per icon and
 * per react-bootstrap part, some forty requests before the dashboard can render. On a phone each
 * costs a round trip, so shared libraries are grouped by what they are. React and the router,
 * which every page needs, get a group of their own: Rollup would otherwise move them into the
 * first group that uses them, and the entry would load that whole group up front.
 */
const GROUPS: [chunk: string, pattern: RegExp][] = [
  ['react', /\/node_modules\/(react|react-dom|scheduler|react-router|@tanstack|cookie|set-cookie-parser)\//],
  ['icons', /\/node_modules\/lucide-react\//],
  [
    'ui',
    /\/node_modules\/(react-bootstrap|@restart|@popperjs|react-transition-group|dom-helpers|uncontrollable|prop-types|classnames|warning|@react-aria|react-aria|@swc\/helpers)\//,
  ],
  ['forms', /\/node_modules\/react-hook-form\//],
  // Apart from the forms: the sign-in page paints before its schemas load (lazy-zod-resolver.ts).
  ['zod', /\/node_modules\/(zod|@hookform)\//],
];

export function chunkOf(id: string): string | undefined {
  return GROUPS.find(([, pattern]) => pattern.test(id))?.[0];
}

/**
 * Every page needs the icons and the UI parts, but the browser would only learn so once the
 * entry has run and the router has asked for the page: preloading them from the HTML fetches
 * them beside React instead of after it.
 */
export function preloadChunks(names: readonly string[]): Plugin {
  return {
    name: 'atrium-preload-chunks',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, { bundle }) =>
        Object.values(bundle ?? {})
          .filter((chunk) => chunk.type === 'chunk' && names.includes(chunk.name))
          .map((chunk) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${chunk.fileName}` },
            injectTo: 'head' as const,
          })),
    },
  };
}
