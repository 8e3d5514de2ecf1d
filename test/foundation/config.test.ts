import { describe, expect, it } from 'vitest';
import { apiCredentials, loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ INVOICING_API_USER: 'u', INVOICING_API_KEY: 'k' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.embeddedDbDir).toBe('./.invoice-mirror/db');
    expect(config.schema).toBe('invoicing');
    expect(config.api.url).toBe('https://www.factuursturen.nl/api/v1');
    expect(config.syncCron).toBeUndefined();
    expect(config.syncInterval).toBe(900_000);
    expect(config.fleet).toEqual({
      leaseSeconds: 30,
      accountConcurrency: 8,
      metricsAccountLabels: 50,
      actionReserve: 20,
      pullSlice: 60_000,
    });
    expect(config.logLevel).toBe('info');
    expect(config.health).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(config.reconcileIntervalHours).toBe(24);
  });

  it('names the setting and the problem in one line', () => {
    expect(errorOf({ INVOICING_API_URL: 'ftp://example.com/api/v1' })).toBe(
      'INVOICING_API_URL: must be an http(s) URL ending in /api/v1',
    );
    expect(errorOf({ INVOICING_API_URL: 'https://example.com/api' })).toBe(
      'INVOICING_API_URL: must be an http(s) URL ending in /api/v1',
    );
    expect(errorOf({ DATABASE_URL: 'not a url' })).toMatch(/^DATABASE_URL: must be a URL like postgres:\/\//);
    expect(errorOf({ DATABASE_URL: 'mysql://localhost/db' })).toMatch(/^DATABASE_URL: /);
    expect(errorOf({ LOG_LEVEL: 'loud' })).toBe(
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(errorOf({ MIRROR_SCHEMA: 'Bad-Name' })).toMatch(/^MIRROR_SCHEMA: /);
    expect(errorOf({ SYNC_CRON: 'every minute' })).toBe(
      'SYNC_CRON: "every minute" has 2 fields; a cron expression has 5 (minute, hour, day of month, month, day of week), or 6 with seconds first; e.g. */15 * * * * (every 15 minutes)',
    );
    expect(errorOf({ SYNC_CRON: '0 25 * * *' })).toBe(
      `SYNC_CRON: "0 25 * * *": the hour field '25' is not valid; e.g. */15 * * * * (every 15 minutes)`,
    );
    expect(errorOf({ RECONCILE_INTERVAL_HOURS: '0' })).toMatch(/^RECONCILE_INTERVAL_HOURS: /);
    expect(errorOf({ HEALTH_PORT: '70000' })).toBe('HEALTH_PORT: must be a whole number from 0 to 65535');
    expect(errorOf({ PAGE_SIZE: '2.5' })).toBe('PAGE_SIZE: must be a whole number from 1 to 10000');
  });

  it('accepts an upper-case log level and strips a trailing slash from the API URL', () => {
    const config = loadConfig({ LOG_LEVEL: 'DEBUG', INVOICING_API_URL: 'http://127.0.0.1:4010/api/v1/' });
    expect(config.logLevel).toBe('debug');
    expect(config.api.url).toBe('http://127.0.0.1:4010/api/v1');
  });

  it('uses the sandbox credentials for a local URL and requires them otherwise', () => {
    expect(apiCredentials(loadConfig({ INVOICING_API_URL: 'http://localhost:4010/api/v1' }))).toEqual({
      user: 'sandbox',
      apiKey: 'sandbox',
    });
    expect(() => apiCredentials(loadConfig({}))).toThrow('INVOICING_API_USER: is required');
    expect(() => apiCredentials(loadConfig({ INVOICING_API_USER: 'me' }))).toThrow('INVOICING_API_KEY: is required');
  });
});
