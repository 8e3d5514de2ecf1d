/**
 * `invoice-mirror status [--account NAME]…`: the last sync runs, the mirror's rows, what is held
 * back, the job queue and the rate-limit budget, of the accounts named (none: every account).
 * With several accounts in the scope a table with one row per account comes first, and rows that
 * come from several accounts name theirs; with one account the output is what it was before
 * accounts. On the embedded database it ends with who holds its server (from the server's keeper).
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { listAccounts, type Account } from '../accounts/store.js';
import { syncPeriodMs } from '../daemon/schedule.js';
import {
  accountSummaries,
  fleetStatus,
  type FleetStatus,
  attentionLine,
  countJobsByStatus,
  countRejectedValues,
  firstRejectedValues,
  HELD_DELETES_EXPLAINED,
  heldDeletes,
  heldDeletesAdvice,
  lastRateLimit,
  mirrorCounts,
  needsAttention,
  oneAccount,
  recentRuns,
  type AccountScope,
  type AccountSummary,
  type AttentionItem,
  type Database,
} from '../db/index.js';
import type { KeeperReport } from '../db/embedded-server.js';
import { formatRows, plural, relativeTime } from '../format.js';
import { collect, withApp } from './context.js';

/** How many runs are listed: the newest of the scope, whichever accounts they are of. */
const RUNS = 5;
const REJECTED_LISTED = 50;

export function registerStatusCommand(command: Command): void {
  command
    .option('--account <name>', 'only this account (repeat for several; none: every account)', collect, [])
    .option('--json', 'print one JSON object, for scripts')
    .action(
      withApp({}, async (app, options: { account: string[]; json?: boolean }) => {
        const { db } = app.database;
        const { accounts, scope } = await resolveAccounts(db, options.account);
        // Remedies name the account whenever the mirror holds several: a command without
        // --account would act on every account.
        const mirrorAccounts = (await listAccounts(db)).length;
        const status = await readStatus(db, scope, accounts, syncPeriodMs(app.config), app.config.fleet.leaseSeconds);
        const keeper = await app.database.embedded?.holders();
        if (options.json) {
          const json = {
            database: app.database.location,
            schema: app.config.schema,
            ...status.json,
            ...(keeper ? { embeddedServer: keeper } : {}),
          };
          process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
          return;
        }
        process.stdout.write(`Mirror in ${app.database.location}, schema ${app.config.schema}\n\n`);
        process.stdout.write(await statusText(status, mirrorAccounts > 1));
        if (keeper) process.stdout.write(await keeperText(keeper));
      }),
    );
}

interface Status {
  /** More than one account in the scope: the per-account table, and rows naming their account. */
  several: boolean;
  summaries: AccountSummary[];
  attention: AttentionItem[];
  runs: Record<string, unknown>[];
  counts: { table: string; live: number; deleted: number }[];
  queue: { status: string; jobs: number }[];
  rateLimits: { account: string; remaining: number; seenAt: Date }[];
  held: Awaited<ReturnType<typeof heldDeletes>>;
  rejected: Record<string, unknown>[];
  rejectedCount: number;
  fleet: FleetStatus;
  /** What --json prints. */
  json: Record<string, unknown>;
}

async function readStatus(
  db: Kysely<Database>,
  scope: AccountScope,
  accounts: readonly Account[],
  periodMs: number,
  leaseSeconds: number,
): Promise<Status> {
  const several = accounts.length > 1;
  const [summaries, attention, runs, counts, byStatus, rateLimits, held, rejected, rejectedCount, fleet] =
    await Promise.all([
      accountSummaries(db, scope),
      needsAttention(db, scope, { periodMs }),
      several ? runsOfEach(db, accounts) : recentRuns(db, scope, RUNS),
      mirrorCounts(db, scope),
      countJobsByStatus(db, scope),
      rateLimitsOf(db, accounts),
      heldDeletes(db, scope),
      firstRejectedValues(db, scope, REJECTED_LISTED),
      countRejectedValues(db, scope),
      fleetStatus(db, scope, leaseSeconds),
    ]);
  const queue = Object.entries(byStatus).map(([status, jobs]) => ({ status, jobs }));
  const rateLimit = several ? undefined : (rateLimits[0] ?? null);
  const json = {
    accounts: summaries,
    runs,
    mirror: counts,
    queue,
    ...(rateLimit === undefined ? { rateLimits } : { rateLimit }),
    heldDeletes: held,
    rejectedValues: { total: rejectedCount, first: rejected },
    attention,
    fleet,
  };
  return { several, summaries, attention, runs, counts, queue, rateLimits, held, rejected, rejectedCount, fleet, json };
}

/** The newest runs of the accounts together, each naming its account (run ids grow across accounts). */
async function runsOfEach(db: Kysely<Database>, accounts: readonly Account[]): Promise<Record<string, unknown>[]> {
  const each = await Promise.all(
    accounts.map(async (account) =>
      (await recentRuns(db, oneAccount(account.id), RUNS)).map(
        (run): Record<string, unknown> => ({ account: account.name, ...run }),
      ),
    ),
  );
  return each
    .flat()
    .sort((a, b) => Number(b.run) - Number(a.run))
    .slice(0, RUNS * 2);
}

async function rateLimitsOf(db: Kysely<Database>, accounts: readonly Account[]): Promise<Status['rateLimits']> {
  const seen = await Promise.all(
    accounts.map(async (account) => {
      const last = await lastRateLimit(db, oneAccount(account.id));
      return last && { account: account.name, ...last };
    }),
  );
  return seen.filter((row) => row !== null);
}

/** The text a person reads; `namesAccounts`: the mirror holds several accounts, so remedies name theirs. */
async function statusText(status: Status, namesAccounts: boolean): Promise<string> {
  const parts: string[] = [];
  if (status.several) parts.push(`Accounts\n${await formatRows(accountRows(status), 'table')}\n`);
  if (status.attention.length > 0)
    parts.push(`Needs attention\n${status.attention.map((item) => `- ${attentionLine(item)}\n`).join('')}\n`);
  // Ages for a person; --json keeps the timestamps.
  const shown = status.runs.map(({ started_at, account, ...run }) => ({
    ...(status.several ? { account } : {}),
    run: run.run,
    started: relativeTime(started_at as Date),
    ...Object.fromEntries(Object.entries(run).filter(([key]) => key !== 'run')),
  }));
  parts.push(
    `Last sync runs\n${shown.length > 0 ? await formatRows(shown, 'table') : '(none yet: run invoice-mirror backfill)\n'}`,
  );
  parts.push(`\nMirror\n${await formatRows(status.counts, 'table')}`);
  if (status.held.length > 0) {
    const rows = status.held.map((h) => ({
      ...(status.several ? { account: h.account } : {}),
      entity: h.entity,
      held: h.held,
      since: h.since,
      release: heldDeletesAdvice(h.entity, namesAccounts ? h.account : null),
    }));
    parts.push(`\nHeld deletes: ${HELD_DELETES_EXPLAINED}\n${await formatRows(rows, 'table')}`);
  }
  if (status.rejectedCount > 0) {
    const rows = status.rejected.map(({ account, ...row }) => (status.several ? { account, ...row } : row));
    parts.push(
      `\nValues not stored as sent (${status.rejectedCount}; table rejected_values)\n${await formatRows(rows, 'table')}`,
    );
    if (status.rejectedCount > rows.length)
      parts.push(`(the first ${rows.length}; select * from rejected_values for all)\n`);
  }
  parts.push(`\nJob queue\n${status.queue.length > 0 ? await formatRows(status.queue, 'table') : '(empty)\n'}`);
  parts.push(`\n${rateLimitText(status)}`);
  parts.push(fleetText(status.fleet));
  return parts.join('');
}

/** Who holds the embedded server (this command among them), its keeper and since when. */
async function keeperText(report: KeeperReport): Promise<string> {
  const since = (iso: string) => `started ${relativeTime(new Date(iso))} (${iso})`;
  const server = report.server
    ? `; PostgreSQL process ${report.server.pid}, ${since(report.server.since)}`
    : '; PostgreSQL not running (its keeper starts it again)';
  const holders = report.holders.map((holder) => ({
    pid: holder.pid,
    command: holder.command,
    since: relativeTime(new Date(holder.since)),
  }));
  return [
    `\nEmbedded server: kept by process ${report.keeper.pid}, ${since(report.keeper.since)}${server}\n`,
    `Held by ${plural(holders.length, 'process', 'processes')}\n${await formatRows(holders, 'table')}`,
  ].join('');
}

/** The daemons at work on the mirror, and the accounts they leave waiting (see docs/scaling.md). */
function fleetText(fleet: FleetStatus): string {
  const { daemonsAlive, leasesHeld, overdue, parked } = fleet;
  const lines = [
    `\nDaemons: ${plural(daemonsAlive, 'daemon')} alive, ${plural(leasesHeld, 'account')} being worked on, ${plural(overdue, 'account')} overdue\n`,
  ];
  for (const p of parked)
    lines.push(`- ${p.account}: parked until ${p.until.toISOString()}${p.reason ? ` (${p.reason})` : ''}\n`);
  return lines.join('');
}

function rateLimitText(status: Status): string {
  const line = (seen: { remaining: number; seenAt: Date }) =>
    `${plural(seen.remaining, 'request')} left this hour, as seen ${relativeTime(seen.seenAt)} (${seen.seenAt.toISOString()})`;
  if (!status.several) {
    const seen = status.rateLimits[0];
    return `Rate limit: ${seen ? line(seen) : 'not seen yet'}\n`;
  }
  if (status.rateLimits.length === 0) return 'Rate limit: not seen yet\n';
  return `Rate limit per account\n${status.rateLimits.map((seen) => `- ${seen.account}: ${line(seen)}\n`).join('')}`;
}

/** One row per account: its state, its last complete sync and that sync's age, its queue and its problems. */
function accountRows(status: Status): Record<string, unknown>[] {
  return status.summaries.map((summary) => ({
    account: summary.name,
    state: summary.state,
    last_complete_sync: summary.last_complete_sync_at ?? 'never',
    age:
      summary.sync_age_seconds === null
        ? ''
        : relativeTime(new Date(0), summary.sync_age_seconds * 1000).replace(/ ago$/, ''),
    queued_jobs: summary.queued_jobs,
    problems: problemsOf(
      summary,
      status.attention.filter((item) => item.account === summary.name),
    ),
  }));
}

/** What needs the account's person, short: its state and reason, failing lists, then the attention items. */
function problemsOf(summary: AccountSummary, items: readonly AttentionItem[]): string {
  const problems: string[] = [];
  if (summary.state !== 'active')
    problems.push(summary.state_reason ? `${summary.state} (${summary.state_reason})` : summary.state);
  if (summary.parked_until)
    problems.push(`parked until ${summary.parked_until.toISOString()} (${summary.parked_reason ?? 'quota spent'})`);
  if (summary.failing_lists.length > 0) problems.push(`failing lists: ${summary.failing_lists.join(', ')}`);
  const prefix = `account ${summary.name}: `;
  for (const item of items)
    if (item.kind !== 'account_refused' && item.kind !== 'account_paused')
      problems.push(item.text.startsWith(prefix) ? item.text.slice(prefix.length) : item.text);
  return problems.join('; ') || 'none';
}
