/**
 * `rejected_values`: every value the mirror stores other than as the service sent it, one row per
 * entity, id and field, until the record is stored whole again. A pull records what it met on
 * each page (also for records it did not need to rewrite: they are as bad as before), and after a
 * complete pull drops the rows it no longer met. Read back in src/db/rejected-values.ts;
 * `sync_runs.counts` counts them per run.
 */
import { sql, type Kysely } from 'kysely';
import type { ValueIssue } from '../api/index.js';
import type { EntityName } from '../catalog/index.js';
import type { Database } from '../db/index.js';

/**
 * A whole record not stored, as a `rejected_values` row: `(record)` one Postgres refused,
 * `(duplicate)` the earlier of two differing copies in one answer. The value is its JSON text, shortened.
 */
export function skippedRecord(
  entity: EntityName,
  id: string,
  field: '(record)' | '(duplicate)',
  message: string,
  rawText: string,
): ValueIssue {
  const value = rawText.length > 200 ? `${rawText.slice(0, 199)}…` : rawText;
  return { entity, id, field, message, value, action: 'skipped' };
}

/** Upserts the issues met by a run (their `last_run_id` becomes this run). */
export async function recordIssues(
  db: Kysely<Database>,
  accountId: number,
  runId: number | null,
  issues: readonly ValueIssue[],
): Promise<void> {
  if (issues.length === 0) return;
  // One row per entity, id and field: the last issue of a field wins (a record listed twice).
  const rows = new Map<string, ValueIssue>();
  for (const issue of issues) rows.set(`${issue.entity}\u0000${issue.id ?? ''}\u0000${issue.field}`, issue);
  await db
    .insertInto('rejected_values')
    .values(
      [...rows.values()].map((issue) => ({
        account_id: accountId,
        entity: issue.entity,
        entity_id: issue.id ?? '(no id)',
        field: issue.field,
        action: issue.action,
        value: issue.value,
        reason: issue.message,
        first_run_id: runId,
        last_run_id: runId,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'entity', 'entity_id', 'field']).doUpdateSet((eb) => ({
        action: eb.ref('excluded.action'),
        value: eb.ref('excluded.value'),
        reason: eb.ref('excluded.reason'),
        last_run_id: eb.ref('excluded.last_run_id'),
        last_seen_at: sql`now()`,
      })),
    )
    .execute();
}

/**
 * After a complete pull of an entity: drops what it no longer met (fixed upstream, or gone), that
 * is every row last met before the run that began its pass (the pull's own run, or an earlier one
 * when the pass went on over several runs).
 */
export async function resolveIssues(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  passRunId: number,
): Promise<void> {
  await db
    .deleteFrom('rejected_values')
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .where((eb) => eb.or([eb('last_run_id', 'is', null), eb('last_run_id', '<', passRunId)]))
    .execute();
}

/** The keys of an entity's records that have `rejected_values` rows (numeric ids only: only those name rows). */
export async function keysWithIssues(db: Kysely<Database>, accountId: number, entity: string): Promise<Set<number>> {
  const rows = await db
    .selectFrom('rejected_values')
    .select('entity_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .execute();
  return new Set(rows.filter((row) => /^\d+$/.test(row.entity_id)).map((row) => Number(row.entity_id)));
}

/** After one record was read again (a job's refresh): its rows become exactly its issues now. */
export async function replaceRecordIssues(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  id: string,
  runId: number | null,
  issues: readonly ValueIssue[],
): Promise<void> {
  await db
    .deleteFrom('rejected_values')
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .where('entity_id', '=', id)
    .execute();
  await recordIssues(db, accountId, runId, issues);
}
