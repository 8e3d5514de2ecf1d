/**
 * What needs a person's attention, read from the bookkeeping tables: held deletes, values not
 * stored as sent, a failed or stale pull, interrupted jobs, a spent rate limit, an account the
 * service refused or a person paused; each with what to do about it. `status`, the console's
 * overview, `/healthz`, `/readyz` and `/metrics` all render this one list, so a new item is added
 * here and shows everywhere.
 *
 * Every item is about one account. When the mirror holds several, each text starts with
 * `account NAME: ` and each remedy names the account (`sync --account NAME …`): a command without
 * it would act on every account.
 */
import { sql, type Kysely } from 'kysely';
import { stateLine } from './account-state.js';
import { heldDeletes, heldDeletesAdvice } from './held-deletes.js';
import { countRejectedValues } from './rejected-values.js';
import { lastFinishedPull, lastSucceededPull, rateLimitSpentAt } from './runs.js';
import type { AccountState, Database } from './schema.js';
import { oneAccount, type AccountScope } from './scope.js';
import { countJobsByStatus } from './summaries.js';

export type AttentionKind =
  | 'held_deletes'
  | 'rejected_values'
  | 'failed_pull'
  | 'stale_pull'
  | 'no_pull'
  | 'stale_mirror'
  | 'no_success'
  | 'interrupted_jobs'
  | 'rate_limit_spent'
  | 'account_refused'
  | 'account_paused'
  | 'unmapped_countries';

export interface AttentionItem {
  kind: AttentionKind;
  /**
   * What it fails: the account's work (`account`: a refused key, a failed or stale pull), its
   * mirror's freshness (`readiness`: no pull succeeded in three periods; the daemon's `/readyz`
   * fails once every served account's is stale), or nothing (null: a warning). Both are the
   * account's trouble, listed in `/healthz` and `/readyz` as `accountProblems` and counted in
   * `/metrics`: no account's trouble fails the daemon's liveness (`/healthz`).
   */
  fails: 'account' | 'readiness' | null;
  /** The name of the account it concerns; null in a mirror with no account yet. */
  account: string | null;
  /** The entity it concerns, if one. */
  entity: string | null;
  /** How many things (deletes, values, jobs); 1 for a state. */
  count: number;
  /** What is wrong, one line. */
  text: string;
  /** What to do about it (empty when the text says it, as an account's state line does). */
  remedy: string;
}

export interface AttentionOptions {
  /** The sync schedule's period: a pull older than three is stale. Without it ages are not judged. */
  periodMs?: number;
  /**
   * How long the daemon asking has been up (monotonic ms): an account with no pull is judged only
   * after three periods of it (and of the account's own life). Without it (not a daemon) that is
   * not judged.
   */
  upForMs?: number;
}

/** An account whose attention is read: its scope, and how the texts and remedies name it. */
interface Judged {
  scope: AccountScope;
  name: string | null;
  state: AccountState;
  reason: string | null;
  /** Seconds since the account was added, by the database's clock (null: no account). */
  ageSeconds: number | null;
  /** ` --account NAME` for a remedy's command when the mirror holds several accounts, else empty. */
  flag: string;
  /** What starts each text: `account NAME: ` when the mirror holds several accounts, else empty. */
  prefix: string;
}

/** Everything that needs attention in the scope, problems of health and readiness first, then warnings. */
export async function needsAttention(
  db: Kysely<Database>,
  scope: AccountScope,
  options: AttentionOptions = {},
): Promise<AttentionItem[]> {
  const accounts = await judgedAccounts(db, scope);
  const groups = await Promise.all(accounts.map((account) => accountItems(db, account, options)));
  const items = groups.flat();
  return [...items.filter((i) => i.fails !== null), ...items.filter((i) => i.fails === null)];
}

/** One line with the remedy, for a warning read by a person. */
export function attentionLine(item: AttentionItem): string {
  return item.remedy === '' ? item.text : `${item.text}; ${item.remedy}`;
}

/**
 * The accounts of the scope that are served or kept for a person (a removed account is neither),
 * in name order; a mirror with no account yet is judged as a whole, as before accounts. Texts and
 * remedies name the account as soon as the mirror holds more than one (whatever their states).
 */
async function judgedAccounts(db: Kysely<Database>, scope: AccountScope): Promise<Judged[]> {
  const { rows } = await sql<{ id: number; name: string; state: AccountState; reason: string | null; age: number }>`
    select id, name, state, state_reason as reason, extract(epoch from now() - created_at)::float8 as age
      from accounts order by name`.execute(db);
  if (rows.length === 0)
    return [{ scope, name: null, state: 'active', reason: null, ageSeconds: null, flag: '', prefix: '' }];
  const several = rows.length > 1;
  return rows
    .filter((row) => row.state !== 'removed' && (scope === 'all' || scope.ids.includes(Number(row.id))))
    .map((row) => ({
      scope: oneAccount(Number(row.id)),
      name: row.name,
      state: row.state,
      reason: row.reason,
      ageSeconds: Number(row.age),
      flag: several ? ` --account ${row.name}` : '',
      prefix: several ? `account ${row.name}: ` : '',
    }));
}

/** The account's items: its state, then (while it is served) its pulls and rate limit, then what waits for a person. */
async function accountItems(db: Kysely<Database>, account: Judged, options: AttentionOptions) {
  const served = account.state === 'active';
  const groups = await Promise.all([
    served ? pullItems(db, account, options) : [],
    heldItems(db, account),
    rejectedItems(db, account),
    jobItems(db, account),
    served ? rateLimitItems(db, account) : [],
    countryItems(db, account),
  ]);
  return [...stateItems(account), ...groups.flat()];
}

function item(
  account: Judged,
  fields: Pick<AttentionItem, 'kind' | 'fails' | 'text' | 'remedy'> & Partial<Pick<AttentionItem, 'count' | 'entity'>>,
): AttentionItem {
  return {
    kind: fields.kind,
    fails: fields.fails,
    account: account.name,
    entity: fields.entity ?? null,
    count: fields.count ?? 1,
    text: `${account.prefix}${fields.text}`,
    remedy: fields.remedy,
  };
}

/**
 * A refused key stops the account's pulls and jobs, as a failed pull does (the account's work fails);
 * a pause is a person's choice (a warning). The state line says why and what to do.
 */
function stateItems(account: Judged): AttentionItem[] {
  if (account.name === null || (account.state !== 'refused' && account.state !== 'paused')) return [];
  const line = stateLine({ name: account.name, state: account.state, state_reason: account.reason });
  const refused = account.state === 'refused';
  return [
    {
      kind: refused ? 'account_refused' : 'account_paused',
      fails: refused ? 'account' : null,
      account: account.name,
      entity: null,
      count: 1,
      text: `account ${account.name}: ${line}`,
      remedy: '',
    },
  ];
}

const checkTheDaemon = (account: Judged): string =>
  `check that the daemon runs and reaches the service (its log says why not), or run 'invoice-mirror sync${account.flag}'`;

/** The last pull failed or is stale (the account's work fails); the last success is stale (its mirror is). */
async function pullItems(db: Kysely<Database>, account: Judged, options: AttentionOptions): Promise<AttentionItem[]> {
  const items: AttentionItem[] = [];
  const [last, success] = await Promise.all([
    lastFinishedPull(db, account.scope),
    lastSucceededPull(db, account.scope),
  ]);
  if (last?.status === 'failed')
    items.push(
      item(account, {
        kind: 'failed_pull',
        fails: 'account',
        text: `the last sync (run ${last.id}) failed`,
        remedy: `its error is in 'invoice-mirror status${account.flag}'; the next sync tries again`,
      }),
    );
  if (options.periodMs === undefined) return items;
  const staleAfterSeconds = (3 * options.periodMs) / 1000;
  // A pull is missed only once the daemon, and the account, have been there three periods.
  const upLongEnough =
    options.upForMs !== undefined &&
    options.upForMs > 3 * options.periodMs &&
    (account.ageSeconds === null || account.ageSeconds > staleAfterSeconds);
  const remedy = checkTheDaemon(account);
  if (last && last.ageSeconds !== null && last.ageSeconds > staleAfterSeconds)
    items.push(
      item(account, {
        kind: 'stale_pull',
        fails: 'account',
        text: `the last sync finished ${last.ageSeconds} s ago (more than three schedule periods)`,
        remedy,
      }),
    );
  if (!last && upLongEnough)
    items.push(item(account, { kind: 'no_pull', fails: 'account', text: 'no sync has finished yet', remedy }));
  if (success && success.ageSeconds > staleAfterSeconds)
    items.push(
      item(account, {
        kind: 'stale_mirror',
        fails: 'readiness',
        text: `the mirror is stale: the last successful sync finished ${Math.round(success.ageSeconds)} s ago (more than three schedule periods)`,
        remedy,
      }),
    );
  if (!success && upLongEnough)
    items.push(
      item(account, {
        kind: 'no_success',
        fails: 'readiness',
        text: 'no sync has succeeded in three schedule periods',
        remedy,
      }),
    );
  return items;
}

async function heldItems(db: Kysely<Database>, account: Judged): Promise<AttentionItem[]> {
  const name = account.flag === '' ? null : account.name;
  return (await heldDeletes(db, account.scope)).map((held) =>
    item(account, {
      kind: 'held_deletes',
      fails: null,
      text: `${held.held} held deletes of ${held.entity} (too many missing from the service at once)`,
      remedy: heldDeletesAdvice(held.entity, name),
      count: held.held,
      entity: held.entity,
    }),
  );
}

async function rejectedItems(db: Kysely<Database>, account: Judged): Promise<AttentionItem[]> {
  const rejected = await countRejectedValues(db, account.scope);
  if (rejected === 0) return [];
  return [
    item(account, {
      kind: 'rejected_values',
      fails: null,
      text: `${rejected} values not stored as sent`,
      remedy: `see invoice-mirror status${account.flag} or table rejected_values; correct them in the service, and the next sync that reads them clears them`,
      count: rejected,
    }),
  ];
}

async function jobItems(db: Kysely<Database>, account: Judged): Promise<AttentionItem[]> {
  const interrupted = (await countJobsByStatus(db, account.scope)).interrupted ?? 0;
  if (interrupted === 0) return [];
  return [
    item(account, {
      kind: 'interrupted_jobs',
      fails: null,
      text: `${interrupted} jobs interrupted (their worker stopped during an attempt)`,
      remedy: `see 'invoice-mirror jobs list${account.flag} --status interrupted' and 'jobs show ID'; then 'jobs retry ID' or 'jobs cancel ID'`,
      count: interrupted,
    }),
  ];
}

async function rateLimitItems(db: Kysely<Database>, account: Judged): Promise<AttentionItem[]> {
  const spentAt = await rateLimitSpentAt(db, account.scope);
  if (!spentAt) return [];
  return [
    item(account, {
      kind: 'rate_limit_spent',
      fails: null,
      text: `the service's hourly rate limit was spent (no request left at ${spentAt.toISOString()})`,
      remedy: 'wait for the next hour: syncs and jobs go on by themselves then',
    }),
  ];
}

/**
 * Country names with no ISO code (countries.iso2) that a live client or sent invoice uses: the VAT
 * views cannot tell such a buyer in the EU from one outside it. Names nobody uses (the real list
 * holds a few: Congo twice, Joegoslavië) are not a problem.
 */
async function countryItems(db: Kysely<Database>, account: Judged): Promise<AttentionItem[]> {
  if (account.scope === 'all') return [];
  const id = account.scope.ids[0]!;
  const { rows } = await sql<{ id: number; name: string | null }>`
    select c.id, c.name from countries c
     where c.account_id = ${id} and c.deleted_at is null and c.iso2 is null
       and (exists (select from clients k where k.account_id = c.account_id and k.country = c.id and k.deleted_at is null)
            or exists (select from invoices i where i.account_id = c.account_id and i.country = c.id and i.deleted_at is null))
     order by c.id`.execute(db);
  if (rows.length === 0) return [];
  const names = rows.map((row) => `${row.name ?? '(no name)'} (${row.id})`).join(', ');
  return [
    item(account, {
      kind: 'unmapped_countries',
      fails: null,
      text: `${rows.length} country name(s) used by clients or invoices map to no ISO code: ${names}`,
      remedy: `their invoices at 0 % or with VAT shifted are in vat_problems (unmapped_country); give those clients another country in the service`,
      count: rows.length,
    }),
  ];
}
