import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  /** Fastify's pattern: `/api/users/:id`, `/oidc/*`. */
  url: string;
}

/** A tree line: its indent (four characters a level), the path piece, the methods in brackets. */
const LINE = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/;

/**
 * Every route the app has registered, from Fastify's own route table (`printRoutes`, the one
 * listing it offers: the router's tree, each line adding a piece to its parent's path; the
 * flattened `commonPrefix: false` form drops pieces before a wildcard). Each is checked against
 * the router, so a misread tree fails here instead of leaving a route out. HEAD is left out:
 * Fastify adds it to every GET, with the GET's handler.
 */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`Unexpected line in Fastify's route tree: ${line}`);
    const [, indent = '', piece = '', methods] = match;
    const depth = indent.length / 4;
    parents.length = depth;
    const url = (parents[depth - 1] ?? '') + piece;
    parents.push(url);
    for (const method of methods?.split(', ') ?? []) {
      if (!app.hasRoute({ method: method as 'GET', url })) {
        throw new Error(`Misread Fastify's route tree: no route ${method} ${url}`);
      }
      if (method !== 'HEAD') routes.push({ method, url });
    }
  }
  return routes;
}
