import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

export type { Logger };

/**
 * Structured logs (pino): human-readable lines on a terminal (pino-pretty), JSON otherwise (a
 * file, a pipe, a container's log collector), or as LOG_FORMAT says. Secrets and tokens are
 * redacted wherever they appear.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'> & Partial<Pick<Config, 'LOG_FORMAT'>>, name = 'deal-radar'): Logger {
  const options: pino.LoggerOptions = {
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
  };
  const format = config.LOG_FORMAT ?? 'auto';
  if (format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true)) {
    // Synchronous: the last lines before an exit (the stop, a start-up failure) are not lost.
    return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name' }));
  }
  return pino(options);
}
