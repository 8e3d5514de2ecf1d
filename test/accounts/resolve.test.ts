/**
 * resolveAccounts, the one resolver of accounts from names (src/accounts/resolve.ts), on a real
 * mirror of four accounts in every state: what each mode gives, and the line each refusal says.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveAccounts, UnknownAccountError } from '../../src/accounts/resolve.js';
import { listAccounts, setAccountState } from '../../src/accounts/store.js';
import { UsageError } from '../../src/errors.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const db = () => database.current.handle.db;
const names = (accounts: readonly { name: string }[]) => accounts.map((account) => account.name);

beforeAll(async () => {
  await db()
    .insertInto('accounts')
    .values(['acme', 'bolt', 'gone'].map((name) => ({ name, api_url: null, api_user: null, api_key: null })))
    .execute();
  const all = await listAccounts(db());
  await setAccountState(db(), all.find((a) => a.name === 'bolt')!.id, 'paused', 'by a person');
  await setAccountState(db(), all.find((a) => a.name === 'gone')!.id, 'removed', null);
});

describe('resolveAccounts', () => {
  it('lists those named in name order, or every account with the scope of all', async () => {
    const every = await resolveAccounts(db(), []);
    expect(names(every.accounts)).toEqual(['acme', 'bolt', 'default', 'gone']);
    expect(every.scope).toBe('all');
    const two = await resolveAccounts(db(), ['gone', 'acme']);
    expect(names(two.accounts)).toEqual(['acme', 'gone']);
    expect(two.scope).toEqual({ ids: two.accounts.map((account) => account.id) });
  });

  it('refuses an unknown name with the known ones, under the label the name came from', async () => {
    const refusal = await resolveAccounts(db(), ['acme', 'nope'], { label: 'account' }).catch((error) => error);
    expect(refusal).toBeInstanceOf(UnknownAccountError);
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal.message).toBe(
      "account: no account named 'nope' (known: acme, bolt, default, gone); 'invoice-mirror accounts list' shows them",
    );
    expect(refusal.known).toEqual(['acme', 'bolt', 'default', 'gone']);
  });

  it('resolves among accounts already read, without reading them again', async () => {
    const among = (await listAccounts(db())).filter((account) => account.name !== 'acme');
    expect(names((await resolveAccounts(db(), ['bolt'], { among })).accounts)).toEqual(['bolt']);
    await expect(resolveAccounts(db(), ['acme'], { among })).rejects.toThrow(/no account named 'acme'/);
  });

  it('serves the active ones, and says why a named one is not served', async () => {
    const served = await resolveAccounts(db(), [], { serve: true });
    expect(names(served.accounts)).toEqual(['acme', 'default']);
    expect(served.scope).toEqual({ ids: served.accounts.map((account) => account.id) });
    await expect(resolveAccounts(db(), ['acme', 'bolt'], { serve: true })).rejects.toThrow(
      "account bolt: paused (by a person); 'invoice-mirror accounts resume bolt' serves it again",
    );
  });

  it('gives one account: the one named, else the only one not removed, else a line naming them', async () => {
    expect((await resolveAccounts(db(), 'gone', { one: true })).name).toBe('gone');
    await expect(resolveAccounts(db(), undefined, { one: true })).rejects.toThrow(
      '--account: required, as the mirror holds 3 accounts (acme, bolt, default); name one',
    );
    const all = await listAccounts(db());
    for (const name of ['acme', 'bolt'])
      await setAccountState(db(), all.find((a) => a.name === name)!.id, 'removed', null);
    expect((await resolveAccounts(db(), undefined, { one: true })).name).toBe('default');
  });
});
