import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Structured JSON logs (pino). Secrets and tokens are redacted wherever they appear. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name = 'deal-radar'): Logger {
  return pino({
    name,
    level: config.LOG_LEVEL,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.password1',
        '*.password2',
        '*.new_password1',
        '*.new_password2',
        '*.old_password',
        '*.refresh',
        '*.refresh_token',
        '*.access_token',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}
