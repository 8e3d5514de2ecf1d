/**
 * The NOTIFY channels of the mirror (migration 0016): one for queued jobs (the `jobs_notify`
 * trigger), one for new events (`events_notify`, src/db/event-triggers.ts). Their names hold a random
 * part kept in `notification_channels`, which only a role that may update `jobs` can read, so a role
 * confined to one account, or a reporting one, can neither LISTEN to them nor raise them. (LISTEN
 * and NOTIFY cannot be restricted by privilege in PostgreSQL.) A notification carries nothing: it
 * says only that something may be there to do, and each listener then asks the database once.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { DatabaseHandle } from './connect.js';
import type { Database } from './schema.js';

export type ChannelPurpose = 'jobs' | 'events';

/** The channel's name, or null where this role may not read it. */
export async function notificationChannel(db: Kysely<Database>, purpose: ChannelPurpose): Promise<string | null> {
  const { rows } = await sql<{ channel: string }>`
    select channel from notification_channels where purpose = ${purpose}`.execute(db);
  return rows[0]?.channel ?? null;
}

/**
 * LISTENs on the channel (see DatabaseHandle.listen); resolves to a function that stops. Where the
 * channel cannot be read (a role that may not run jobs) or listened to, it says so once and the
 * caller's polling is all there is.
 */
export async function listenFor(
  database: DatabaseHandle,
  purpose: ChannelPurpose,
  onNotify: () => void,
  log: Logger,
  onListening?: () => void,
): Promise<() => Promise<void>> {
  try {
    const channel = await notificationChannel(database.db, purpose);
    if (channel) return await database.listen(channel, () => onNotify(), onListening);
    log.warn(
      { purpose },
      `cannot hear when ${purpose === 'jobs' ? 'jobs are queued' : 'events are written'}: this database role may not read notification_channels (it needs UPDATE on jobs); polling only`,
    );
  } catch (error) {
    log.warn({ purpose, error: errorMessage(error) }, `cannot LISTEN for ${purpose}; polling only`);
  }
  return async () => undefined;
}
