/** The daemon's metrics leave out what is not known yet, rather than report a value that means something else. */
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

describe('metrics before the first request', () => {
  it('have no rate-limit sample (0 would read as a spent quota), only its help', async () => {
    const metrics = new DaemonMetrics(database.current.handle.db, '0.0.0-test', () => ({}));
    const text = await metrics.registry.metrics();
    expect(text).toContain('# HELP invoice_mirror_rate_limit_remaining');
    expect(text).not.toMatch(/^invoice_mirror_rate_limit_remaining /m);
  });
});
