/**
 * The daemon's metrics leave out what is not known yet, rather than report a value that means
 * something else, and label what is about an account with its name.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ensureDefaultAccount } from '../../src/accounts/store.js';
import type { InvoicingClient } from '../../src/api/index.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import type { SyncOutcome } from '../../src/sync/index.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

// Asserted, not annotated: the outcome's other fields (whether the key was refused…) do not matter here.
const outcome = (fetched: number) =>
  ({
    runId: 1,
    status: 'succeeded',
    entities: {
      clients: {
        fetched,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: fetched,
        restored: 0,
        held: 0,
        rejected: 0,
        complete: true,
      },
    },
    requestsMade: 1,
    error: null,
    refused: false,
  }) as SyncOutcome;

describe('metrics before the first request', () => {
  it('have no rate-limit sample (0 would read as a spent quota), only its help', async () => {
    const metrics = new DaemonMetrics(database.current.handle.db, '0.0.0-test', () => ({}));
    const text = await metrics.registry.metrics();
    expect(text).toContain('# HELP invoice_mirror_rate_limit_remaining');
    expect(text).not.toMatch(/^invoice_mirror_rate_limit_remaining/m);
  });
});

describe('metrics of accounts', () => {
  it('label what is about an account with its name: the one account a mirror starts with is default', async () => {
    const db = database.current.handle.db;
    await ensureDefaultAccount(db);
    const metrics = new DaemonMetrics(db, '0.0.0-test', () => ({}));
    metrics.recordSync('default', 'sync', 1500, outcome(7));
    metrics.watch('default', { rateLimitRemaining: 42 } as InvoicingClient);
    const text = await metrics.render();
    expect(text).toMatch(/^invoice_mirror_jobs\{account="default",status="queued"\} 0$/m);
    expect(text).toMatch(/^invoice_mirror_sync_runs_total\{account="default",kind="sync",status="succeeded"\} 1$/m);
    expect(text).toMatch(
      /^invoice_mirror_last_sync_records\{account="default",entity="clients",outcome="fetched"\} 7$/m,
    );
    expect(text).toMatch(/^invoice_mirror_rate_limit_remaining\{account="default"\} 42$/m);
    // No pull has succeeded: the timestamp is absent, not 0.
    expect(text).not.toMatch(/^invoice_mirror_last_sync_success_timestamp_seconds/m);
  });

  it("one account's last sync replaces its own, never another's; attention is counted per account", async () => {
    const db = database.current.handle.db;
    const { rows } = await sql<{ id: number }>`insert into accounts (name) values ('acme') returning id`.execute(db);
    await sql`insert into held_deletes (account_id, entity, entity_id) values (${rows[0]!.id}, 'clients', '4'), (${rows[0]!.id}, 'clients', '5')`.execute(
      db,
    );
    const metrics = new DaemonMetrics(db, '0.0.0-test', () => ({}));
    metrics.recordSync('default', 'sync', 1500, outcome(7));
    metrics.recordSync('acme', 'backfill', 900, outcome(3));
    metrics.recordSync('acme', 'sync', 100, outcome(2));
    const text = await metrics.render();
    expect(text).toMatch(/^invoice_mirror_last_sync_duration_seconds\{account="default",kind="sync"\} 1.5$/m);
    expect(text).toMatch(/^invoice_mirror_last_sync_duration_seconds\{account="acme",kind="sync"\} 0.1$/m);
    expect(text).not.toContain('invoice_mirror_last_sync_duration_seconds{account="acme",kind="backfill"}');
    expect(text).toMatch(/^invoice_mirror_last_sync_records\{account="acme",entity="clients",outcome="fetched"\} 2$/m);
    expect(text).toMatch(/^invoice_mirror_attention\{account="acme",kind="held_deletes"\} 2$/m);
    expect(text).toMatch(/^invoice_mirror_jobs\{account="acme",status="failed"\} 0$/m);
  });

  it('beyond METRICS_ACCOUNT_LABELS accounts, counts are summed under "*" and freshness is a histogram', async () => {
    const db = database.current.handle.db;
    await ensureDefaultAccount(db);
    const { rows } = await sql<{ id: number }>`
      insert into accounts (name) values ('cargo'), ('delta') returning id`.execute(db);
    await sql`insert into sync_runs (account_id, kind, status, finished_at)
              values (${rows[0]!.id}, 'sync', 'succeeded', now() - interval '90 seconds')`.execute(db);
    await sql`insert into held_deletes (account_id, entity, entity_id)
              values (${rows[0]!.id}, 'clients', '4'), (${rows[1]!.id}, 'clients', '5')`.execute(db);
    const { rows: active } = await sql<{ n: number }>`
      select count(*)::int as n from accounts where state = 'active'`.execute(db);
    const metrics = new DaemonMetrics(db, '0.0.0-test', () => ({}), 30, 2);
    await metrics.start();
    metrics.recordSync('cargo', 'sync', 100, outcome(2));
    metrics.recordSync('delta', 'sync', 100, outcome(2));
    const text = await metrics.render();
    expect(text).not.toMatch(/account="(acme|cargo|delta|default)"/);
    expect(text).toMatch(/^invoice_mirror_sync_runs_total\{account="\*",kind="sync",status="succeeded"\} 2$/m);
    expect(text).toMatch(/^invoice_mirror_attention\{account="\*",kind="held_deletes"\} [2-9]$/m);
    expect(text).toMatch(/^invoice_mirror_jobs\{account="\*",status="queued"\} 0$/m);
    expect(text).not.toMatch(/^invoice_mirror_last_sync_duration_seconds\{/m);
    // One account pulled 90 s ago; the others never.
    expect(text).toMatch(/^invoice_mirror_account_pull_age_seconds_bucket\{le="60"\} 0$/m);
    expect(text).toMatch(/^invoice_mirror_account_pull_age_seconds_bucket\{le="120"\} 1$/m);
    expect(text).toMatch(/^invoice_mirror_account_pull_age_seconds_count 1$/m);
    expect(text).toContain(`invoice_mirror_fleet{what="accounts_never_complete"} ${active[0]!.n - 1}\n`);
  });
});
