import { pino, type Logger } from 'pino';
import { sha256Hex } from './sha256.ts';

export type { Logger };

/**
 * pino JSON logger. Phone numbers, IPs and API keys are personal data or secrets: any field that
 * could carry them is censored, and code that needs to correlate logs uses `digest()` instead.
 */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { svc: name, pid: process.pid },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'apiKey',
        'api_key',
        'phone_number',
        'ip_address',
        '*.phone_number',
        '*.ip_address',
        'subject',
        '*.subject',
        // Errors go through pino's serializer ({ err }): ioredis attaches the failed command, whose
        // arguments can be a password (AUTH, HELLO) or a subject's ledger key.
        'err.command.args',
        'err.cause.command.args',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A short, stable, non-reversible tag for correlating a personal value across log lines. */
export function digest(value: string): string {
  return sha256Hex(value).slice(0, 16);
}
