import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * OpenAPI 3.1 at /api/openapi.json and a reference page at /api/docs.
 * Every /api route must name an operationId, checked as routes are added.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    const isApi = route.url.startsWith('/api/') && !route.url.startsWith('/api/docs');
    if (isApi && route.url !== '/api/openapi.json' && !route.schema?.operationId && route.method !== 'HEAD') {
      throw new Error(`Route ${String(route.method)} ${route.url} has no schema.operationId`);
    }
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atrium API',
        version: '1.0.0',
        description:
          'The admin and user API of the Atrium console. Authenticated with the HttpOnly session cookie; ' +
          'state-changing requests carry the X-CSRF-Token header from GET /api/session.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'atrium_session' },
          csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
        },
      },
    },
    // Published: /api, and outside it the routes that name an operation (device discovery, which
    // mail clients call): both are what a client developer, and the fuzz test, need to know.
    transform: (input) => {
      const published = input.url.startsWith('/api/')
        ? !input.url.startsWith('/api/docs')
        : Boolean(input.schema?.operationId);
      if (!published) return { schema: { ...input.schema, hide: true }, url: input.url };
      return jsonSchemaTransform(input);
    },
  });
  app.get('/api/openapi.json', { schema: { hide: true }, config: { access: 'public' } }, () => app.swagger());
  // Tags start folded: with every operation open, Swagger UI stops drawing after the first tags
  // (about 130 operations), the page looks empty below them. An operation opens on a click.
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    uiConfig: { docExpansion: 'none' },
  });
}
