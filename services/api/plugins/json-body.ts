/**
 * JSON bodies as Fastify parses them (its secure parser: `__proto__` and `constructor.prototype`
 * keys refused), except that an empty or blank body is no body: many HTTP clients send
 * `Content-Type: application/json` on every request, a DELETE included. The route then answers
 * exactly as it would to a request without a body (Fastify's default answered 400 "empty body").
 */
import type { FastifyInstance } from 'fastify';

export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}
