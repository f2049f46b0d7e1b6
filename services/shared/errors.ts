/**
 * Errors that carry what to do next. HTTP errors map to the contract's shapes
 * (see PRODUCT.md "API conventions"); job errors say whether a retry can help.
 */

/** `{ "detail": "…" }` with a status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const notFound = (detail = 'Not found.') => new HttpError(404, detail);
export const unauthorized = (detail = 'Authentication credentials were not provided.') => new HttpError(401, detail);
export const forbidden = (detail = 'You do not have permission to perform this action.') => new HttpError(403, detail);
export const serviceUnavailable = (detail: string) => new HttpError(503, detail);
export const tooManyRequests = (retryAfterSeconds: number, detail = 'Request was throttled.') =>
  new HttpError(429, `${detail} Expected available in ${retryAfterSeconds} seconds.`, {
    'retry-after': String(retryAfterSeconds),
  });

/**
 * A 400 in dj-rest-auth's field shape: `{"email": ["…"], "detail": "…"}`; `detail` holds the first
 * message because the spec's client reads `detail`, then `error`, then `HTTP {status}`.
 */
export class ValidationError extends Error {
  constructor(readonly fields: Record<string, string[]>) {
    const first = Object.values(fields).find((m) => m.length > 0)?.[0] ?? 'Invalid input.';
    super(first);
    this.name = 'ValidationError';
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }

  static nonField(message: string): ValidationError {
    return new ValidationError({ non_field_errors: [message] });
  }

  toBody(): Record<string, string[] | string> {
    return { ...this.fields, detail: this.message };
  }
}

/** A job failure that a retry may fix (network blip, 5xx, 429). */
export class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryableError';
  }
}

/** A job failure that retrying cannot fix (404 of a lot, a page that does not parse). */
export class NonRetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NonRetryableError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
