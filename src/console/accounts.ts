/**
 * Which accounts a page of the console shows: `?account=NAME` on every link and form (the
 * switcher in the header sets it), or none: all accounts, or the only one when the mirror holds
 * one (its pages read as they did before accounts). A page of one account reads that account's
 * rows only; a page of all accounts names the account of each row and links to it.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import type { Kysely } from 'kysely';
import { resolveAccounts, UnknownAccountError } from '../accounts/resolve.js';
import { listAccounts, stateLine, type Account } from '../accounts/store.js';
import { oneAccount, type AccountScope, type Database } from '../db/index.js';
import type { Html } from './html.js';

/** What a request of the console shows, decided once per request (see accountChoice). */
export interface Viewing {
  /** Every account of the mirror, in name order (the switcher offers them). */
  readonly accounts: readonly Account[];
  /** The account shown, or null: all of them. */
  readonly account: Account | null;
  /** The account named by `?account=`, which every link and form carries on; null when none was named. */
  readonly named: string | null;
  /** What the reads cover: the account shown, or all. */
  readonly scope: AccountScope;
  /** The page's path and query, for the switcher (the same page for another account). */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
}

export type ConsoleEnv = { Variables: { view: Viewing } };
export type ConsoleApp = Hono<ConsoleEnv>;

/** The query parameter that names the account. */
export const ACCOUNT_PARAMETER = 'account';

/** The paths that show no account's data (scripts, styles, the icon): no account is looked up for them. */
const NO_ACCOUNT_PATHS = /^\/(static\/|favicon\.ico$)/;

/**
 * Decides the account of every page (`c.get('view')`), or answers 400 with one line when
 * `?account=` names no account of the mirror (resolved as everywhere: resolveAccounts).
 */
export function accountChoice(db: Kysely<Database>, unknown: (line: string) => Html): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (NO_ACCOUNT_PATHS.test(c.req.path)) return next();
    const accounts = await listAccounts(db);
    const named = c.req.query(ACCOUNT_PARAMETER) || null;
    let account: Account | null = accounts.length === 1 ? accounts[0]! : null;
    try {
      if (named !== null) account = (await resolveAccounts(db, [named], { among: accounts })).accounts[0]!;
    } catch (error) {
      if (!(error instanceof UnknownAccountError)) throw error;
      const known = error.known.join(', ') || 'none yet';
      return c.html(unknown(`No account named "${named}" in this mirror (known: ${known}).`), 400);
    }
    const view: Viewing = {
      accounts,
      account,
      named,
      scope: account ? oneAccount(account.id) : 'all',
      path: c.req.path,
      query: c.req.query(),
    };
    c.set('view', view);
    return next();
  };
}

/** A console path (it may carry a query) with the account: `account`, else the one the page was asked for. */
export function link(view: Viewing | undefined, path: string, account?: string | null): string {
  const name = account === undefined ? (view?.named ?? null) : account;
  if (name === null) return path;
  const parsed = new URL(path, 'http://console');
  parsed.searchParams.set(ACCOUNT_PARAMETER, name);
  return `${parsed.pathname}?${parsed.searchParams.toString()}`;
}

/** The hidden input that carries the account through a GET form (its fields replace the query). */
export function accountInput(view: Viewing): Html {
  return view.named === null ? html`` : html`<input type="hidden" name="${ACCOUNT_PARAMETER}" value="${view.named}" />`;
}

/** Whether rows of the page come from several accounts, so each names its own. */
export function showsSeveral(view: Viewing): boolean {
  return view.account === null && view.accounts.length > 1;
}

/** The name of the account with this id (rows carry `account_id`). */
export function accountName(view: Viewing, id: unknown): string {
  return view.accounts.find((account) => account.id === Number(id))?.name ?? String(id);
}

/** An account's state as a person reads it: the state, and for one not served, why and what to do. */
export function stateText(account: Account): string {
  return account.state === 'active' ? 'active' : stateLine(account);
}

/**
 * The header's switcher: the same page for all accounts or for one. A GET form, so it works
 * without script (the button); with script a choice submits at once. The page number is dropped:
 * another account's list starts at its first page.
 */
export function accountSwitcher(view: Viewing): Html {
  const kept = Object.entries(view.query).filter(([name]) => name !== ACCOUNT_PARAMETER && name !== 'page');
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}" ${selected ? 'selected' : ''}>${label}</option>`;
  return html`<form class="switcher" method="get" action="${view.path}">
    ${kept.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <label>account
      <select name="${ACCOUNT_PARAMETER}" data-submit-on-change>
        ${option('', 'All accounts', view.named === null && view.account === null)}
        ${view.accounts.map((a) =>
          option(a.name, a.state === 'active' ? a.name : `${a.name} (${a.state})`, view.account?.id === a.id),
        )}
      </select></label>
    <noscript><button type="submit">Show</button></noscript>
  </form>`;
}

/** What a page that acts on one account says when none is chosen: which accounts it could be. */
export function chooseAccount(view: Viewing, what: string, path: string): Html {
  const offered = view.accounts.filter((account) => account.state !== 'removed');
  if (offered.length === 0)
    return html`<p class="error">There is no account yet, so ${what} cannot be for one: run <code>invoice-mirror backfill</code> (it adds <code>default</code> from the INVOICING_API_* settings) or <code>invoice-mirror accounts add</code>.</p>`;
  return html`<p class="error" role="alert">Choose the account: ${what} is for one account.</p>
    <ul class="accounts">${offered.map(
      (account) =>
        html`<li><a href="${link(view, path, account.name)}">${account.name}</a>${account.state === 'active' ? '' : html` <span class="muted">(${account.state})</span>`}</li>`,
    )}</ul>`;
}
