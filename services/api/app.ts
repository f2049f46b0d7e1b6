/**
 * Builds the Fastify app in three layers, as fastify/demo does: external plugins (security
 * headers, CORS, rate limits, OpenAPI), then routes, then the web app and the not-found handler
 * (404, or 405 with Allow for a known path asked with another method).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cors from '@fastify/cors';
import helmet from 'helmet';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../shared/context.js';
import { tooManyRequests } from '../shared/errors.js';
import { APP_VERSION } from '../shared/version.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { acceptEmptyJsonBodies } from './plugins/json-body.js';
import { methodNotAllowedDetail, recordRoutes } from './plugins/method-not-allowed.js';
import { transformWithErrorAnswers } from './plugins/openapi-error-answers.js';
import { strictValidatorCompiler } from './plugins/strict-input.js';
import { routePlugins } from './routes/index.js';

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

export type ApiApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

export async function buildApp(ctx: AppContext, opts: { webDist?: string } = {}): Promise<ApiApp> {
  const { config } = ctx;
  const app = Fastify({
    loggerInstance: ctx.logger.child({ service: 'api' }) as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: false },
    // Fastify logs each request twice (received, completed); one line when it is answered is enough.
    // (Fastify 5.12 takes this through its LogController; the top-level option is deprecated.)
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  // zod's validator, with a body field or query parameter the route does not know refused (a 400 naming it).
  app.setValidatorCompiler(strictValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  acceptEmptyJsonBodies(app);
  const routeTable = recordRoutes(app);

  // Security headers: helmet's, computed once. (@fastify/helmet built helmet's middleware again
  // on every request — parsing the CSP directives each time was 6% of a list request's CPU.)
  const securityHeaders = securityHeadersOf(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          // Listing photos are hot-linked from auction sites.
          imgSrc: ["'self'", 'data:', 'https:', 'http:'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'"],
          connectSrc: ["'self'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  await app.register(cors, { origin: config.CORS_ORIGINS, credentials: false });
  await app.register(rateLimit, {
    global: false,
    // Thrown as an HttpError so the error handler answers the contract's {detail} (a plain object had no message).
    errorResponseBuilder: (_req, context) => tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Deal Radar API', version: APP_VERSION, description: 'The API behind the Deal Radar web app.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: transformWithErrorAnswers,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  for (const plugin of routePlugins) await app.register(plugin(ctx));

  const webDist = opts.webDist ?? WEB_DIST;
  const hasWeb = existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, { root: webDist, wildcard: false, index: ['index.html'] });
  }
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '';
    // The React app owns every non-API path (its router shows the 404 page).
    if (hasWeb && request.method === 'GET' && !url.startsWith('/api/')) {
      return reply.type('text/html').sendFile('index.html');
    }
    const allowed = routeTable.allowedMethods(url);
    if (allowed.length > 0) return reply.status(405).header('allow', allowed.join(', ')).send({ detail: methodNotAllowedDetail(request.method) });
    return reply.status(404).send({ detail: 'Not found.' });
  });
  return app;
}

/** The headers a helmet middleware sets (it sets the same ones on every response). */
function securityHeadersOf(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  middleware({} as never, response as never, (err?: unknown) => {
    if (err) throw err;
  });
  return headers;
}
