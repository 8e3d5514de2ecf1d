/**
 * What the mirror knows about a record, for the checks a job makes before any call. Only positive
 * evidence stops a job: a record the mirror marked deleted, or one missing although its entity
 * has had a complete pull. A mirror that never pulled the entity cannot tell, and the service
 * decides. Every read is of the job's account: ids are the service's, so invoice 12 of one
 * account says nothing about invoice 12 of another.
 */
import { sql, type Kysely } from 'kysely';
import { entityNamed, type SingleReadEntity } from '../catalog/index.js';
import { lastCompletePullOf, type Database } from '../db/index.js';
import { PrecheckError } from './errors.js';

type Row = Record<string, unknown> & { deleted_at: Date | null };

/**
 * One account's part of the mirror: the connection to read it on and the account whose rows
 * count. A JobContext is one, so handlers pass their context as it is.
 */
export interface AccountMirror {
  db: Kysely<Database>;
  accountId: number;
}

/** Rows of the account's mirror by key (deleted ones included). */
export async function mirrorRows(
  mirror: AccountMirror,
  entity: SingleReadEntity,
  ids: number[],
): Promise<Map<number, Row>> {
  if (ids.length === 0) return new Map();
  const key = entityNamed(entity).key;
  const { rows } = await sql<Row>`
    select * from ${sql.table(entity)}
     where account_id = ${mirror.accountId} and ${sql.ref(key)} = any(${sql.val(ids)}::int[])`.execute(mirror.db);
  return new Map(rows.map((row) => [Number(row[key]), row]));
}

/**
 * Throws a PrecheckError naming every id the mirror shows is gone (or never existed); returns the
 * live rows it has (an id the mirror cannot speak for is simply missing from the map).
 */
export async function requireLive(
  mirror: AccountMirror,
  entity: SingleReadEntity,
  ids: number[],
): Promise<Map<number, Row>> {
  const rows = await mirrorRows(mirror, entity, ids);
  const label = entityNamed(entity).label;
  const deleted = ids.filter((id) => rows.get(id)?.deleted_at);
  if (deleted.length > 0) {
    const when = rows.get(deleted[0]!)!.deleted_at!;
    throw new PrecheckError(
      `${label} ${deleted.join(', ')} ${deleted.length === 1 ? 'no longer exists' : 'no longer exist'} (the mirror marked ${deleted.length === 1 ? 'it' : 'them'} deleted at ${new Date(when).toISOString()})`,
    );
  }
  const missing = ids.filter((id) => !rows.has(id));
  if (missing.length > 0) {
    const pulled = await lastCompletePullOf(mirror.db, mirror.accountId, entity);
    if (pulled) {
      throw new PrecheckError(
        `${label} ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the mirror (last complete pull of ${entity} at ${pulled.toISOString()}); run 'invoice-mirror sync' first if ${missing.length === 1 ? 'it was' : 'they were'} created since`,
      );
    }
  }
  return rows;
}

/** A quotation's state as the mirror has it (undefined when the mirror cannot tell). */
export async function quotationState(
  mirror: AccountMirror,
  id: number,
): Promise<{ sent: boolean; approved: boolean } | undefined> {
  const row = (await requireLive(mirror, 'quotations', [id])).get(id);
  if (!row) return undefined;
  const approved = row.approved;
  return {
    sent: row.sent === true,
    approved:
      approved !== null && typeof approved === 'object' && !Array.isArray(approved) && Object.keys(approved).length > 0,
  };
}
