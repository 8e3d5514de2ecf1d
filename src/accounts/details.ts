/**
 * Everything `accounts show NAME` says about one account, except its key: where it is reached and
 * with what, its state, and its share of the mirror (records per table, jobs by status, last runs).
 */
import { sql, type Kysely } from 'kysely';
import { ENTITY_NAMES } from '../catalog/index.js';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { formatRows } from '../format.js';
import { type AccountOverview, accountsOverview, ageText, problemsText } from './overview.js';
import { sameService, serviceUrlFor } from './service.js';
import type { Account } from './store.js';

export interface AccountDetails {
  account: Account;
  overview: AccountOverview;
  records: { table: string; live: number; deleted: number }[];
  jobs: { status: string; jobs: number }[];
  runs: Record<string, unknown>[];
}

export async function accountDetails(db: Kysely<Database>, account: Account): Promise<AccountDetails> {
  const [overview] = await accountsOverview(db, account.id);
  const counts = ENTITY_NAMES.map(
    (table) => sql`
      select ${table} as table, count(*) filter (where deleted_at is null)::int as live,
             count(deleted_at)::int as deleted
        from ${sql.table(table)} where account_id = ${account.id}`,
  );
  const { rows: records } = await sql<AccountDetails['records'][number]>`${sql.join(counts, sql` union all `)}`.execute(
    db,
  );
  const { rows: jobs } = await sql<AccountDetails['jobs'][number]>`
    select status, count(*)::int as jobs from jobs where account_id = ${account.id}
     group by status order by status`.execute(db);
  const { rows: runs } = await sql<Record<string, unknown>>`
    select id as run, kind, status, started_at, finished_at, requests_made as requests, error
      from sync_runs where account_id = ${account.id} order by id desc limit 5`.execute(db);
  return { account, overview: overview!, records, jobs, runs };
}

/** Where the account's API address, user and key come from, never the key itself. */
export function credentialLines(account: Account, config: Config): string[] {
  const own = account.api_user !== null && account.api_key !== null;
  return [
    `api url: ${account.api_url ?? `from INVOICING_API_URL (${config.api.url})`}`,
    `api user: ${own ? account.api_user : 'from INVOICING_API_USER'}`,
    `api key: ${own ? 'stored, sealed' : 'from INVOICING_API_KEY'}`,
    `service: ${account.service_url ?? 'not bound yet (its first pull binds it to the service it pulls from)'}${serviceNote(account, config)}`,
  ];
}

/** Said when this process's settings point the account at another service than its rows come from. */
function serviceNote(account: Account, config: Config): string {
  const here = serviceUrlFor(account, config);
  return sameService(account.service_url, here)
    ? ''
    : ` (these settings point it at ${here}: not served until 'invoice-mirror accounts rebind ${account.name}')`;
}

const when = (at: Date | null) => (at ? at.toISOString() : '');

/** The text `accounts show` prints. */
export async function detailsText(details: AccountDetails, config: Config): Promise<string> {
  const { account, overview } = details;
  const lines = [
    `name: ${account.name}`,
    `state: ${account.state}${account.state_reason ? ` (${account.state_reason})` : ''}`,
    ...(account.state_changed_at ? [`state changed: ${when(account.state_changed_at)}`] : []),
    ...credentialLines(account, config),
    `created: ${when(account.created_at)}`,
    `notes: ${account.notes ?? ''}`,
    `last complete sync: ${overview.last_complete_sync_at ? `${when(overview.last_complete_sync_at)} (${ageText(overview.sync_age_seconds)} ago)` : 'never'}`,
    `problems: ${problemsText(overview) || 'none'}`,
    '',
    'Records',
    (await formatRows(details.records, 'table')).trimEnd(),
    '',
    'Jobs',
    details.jobs.length > 0 ? (await formatRows(details.jobs, 'table')).trimEnd() : '(none)',
    '',
    'Last runs',
    details.runs.length > 0 ? (await formatRows(details.runs, 'table')).trimEnd() : '(none yet)',
  ];
  return `${lines.join('\n')}\n`;
}
