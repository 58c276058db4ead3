import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OutputBundle, OutputChunk } from 'rollup';
import type { Plugin } from 'vite';

/** The HTML page the server sends for each of these paths; other paths get index.html. */
export const ROUTE_PAGES_FILE = 'route-pages.json';

/**
 * A page's own code is only asked for once the entry has run and the router has matched the URL:
 * one more round trip, on a phone some hundreds of milliseconds, before the first paint. For the
 * pages people open first, the build writes a copy of index.html that also preloads the modules
 * of the page and its layouts, links their CSS (which the lazy chunks would otherwise add only
 * when they load, delaying the paint once more) and preloads the API reads the page waits for, and
 * `route-pages.json` saying which copy answers which path.
 */
export interface RoutePage {
  /** The source files of the page's route modules, layouts first. */
  modules: readonly string[];
  /**
   * API reads the page's loaders make before it can render (GET, same origin): fetched beside the
   * page's code instead of after it has run. The console's fetch (cors mode, same-origin
   * credentials) takes the preloaded answer.
   */
  reads?: readonly string[];
}

export function routePages(pages: Record<string, RoutePage>): Plugin {
  let outDir = 'dist';
  let root = '';
  let bundle: OutputBundle = {};
  return {
    name: 'atrium-route-pages',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    generateBundle(_options, output) {
      bundle = output;
    },
    // Before the precompress plugin's closeBundle (listed after this one), so the copies get their
    // .br and .gz too.
    closeBundle() {
      const chunks = Object.values(bundle).filter((file): file is OutputChunk => file.type === 'chunk');
      const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const index = readFileSync(path.join(outDir, 'index.html'), 'utf8');
      const manifest: Record<string, string> = {};
      for (const [route, page] of Object.entries(pages)) {
        const files = new Set<string>();
        for (const source of page.modules) {
          const chunk = chunks.find((c) => c.facadeModuleId === path.resolve(root, source));
          if (!chunk) throw new Error(`route-pages: no chunk for ${source} (${route})`);
          collectImports(chunk, byFile, files);
        }
        const modules = [...files]
          .filter((file) => !index.includes(`/${file}"`))
          .map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`);
        const css = [...new Set([...files].flatMap((file) => cssOf(byFile.get(file))))]
          .filter((file) => !index.includes(`/${file}"`))
          .map((file) => `<link rel="stylesheet" crossorigin href="/${file}">`);
        const reads = (page.reads ?? []).map(
          (url) => `<link rel="preload" as="fetch" crossorigin="anonymous" href="${url}">`,
        );
        const links = [...reads, ...modules, ...css].join('\n    ');
        const name = `pages/${route.replace(/^\//, '').replaceAll('/', '-') || 'index'}.html`;
        mkdirSync(path.join(outDir, 'pages'), { recursive: true });
        writeFileSync(path.join(outDir, name), index.replace('</head>', `  ${links}\n  </head>`));
        manifest[route] = name;
      }
      writeFileSync(path.join(outDir, ROUTE_PAGES_FILE), JSON.stringify(manifest, null, 2));
    },
  };
}

function collectImports(chunk: OutputChunk, byFile: Map<string, OutputChunk>, into: Set<string>): void {
  if (into.has(chunk.fileName)) return;
  into.add(chunk.fileName);
  for (const file of chunk.imports) {
    const imported = byFile.get(file);
    if (imported) collectImports(imported, byFile, into);
  }
}

/** The CSS files Vite split off a chunk (loaded by its dynamic import, before the chunk runs). */
function cssOf(chunk: OutputChunk | undefined): string[] {
  const meta = (chunk as { viteMetadata?: { importedCss: Set<string> } } | undefined)?.viteMetadata;
  return meta ? [...meta.importedCss] : [];
}
