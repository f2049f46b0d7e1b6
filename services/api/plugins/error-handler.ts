/**
 * One place that turns errors into the contract's shapes (PRODUCT.md "API conventions"):
 * 400 → `{"field": ["…"], "detail": "…"}`; others → `{"detail": "…"}`. 5xx details are hidden.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError, ValidationError } from '../../shared/errors.js';

function fieldOf(instancePath: string, context: string | undefined): string {
  const field = instancePath.replace(/^\//, '').split('/')[0];
  if (field) return field;
  return context === 'body' ? 'non_field_errors' : (context ?? 'non_field_errors');
}

/** Validation issues as the contract's fields: `{"page": ["page: must be at least 1."]}`. */
export function validationFields(issues: ReadonlyArray<{ instancePath: string; message?: string }>, context: string | undefined): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = fieldOf(issue.instancePath, context);
    const message = issue.message ?? 'Invalid value.';
    (fields[field] ??= []).push(field === 'non_field_errors' ? message : `${field}: ${message}`);
  }
  return fields;
}

export function toValidationError(err: FastifyError & { validation: { instancePath: string; message?: string }[] }): ValidationError {
  return new ValidationError(validationFields(err.validation, err.validationContext));
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ValidationError) return reply.status(400).send(err.toBody());
    if (hasZodFastifySchemaValidationErrors(err)) return reply.status(400).send(toValidationError(err).toBody());
    if (err instanceof HttpError) return reply.status(err.statusCode).headers(err.headers).send({ detail: err.detail });

    const status = err.statusCode ?? 500;
    if (status === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.status(413).send({ detail: 'Request body is too large.' });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError) {
      return reply.status(400).send({ non_field_errors: ['Malformed JSON body.'], detail: 'Malformed JSON body.' });
    }
    if (status >= 400 && status < 500) return reply.status(status).send({ detail: err.message });

    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ detail: 'Internal server error.' });
  });
}
