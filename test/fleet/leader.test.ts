/**
 * The fleet's leader, in-process against the database: one daemon leads at a time; the leader
 * renews its lease and keeps it; another takes it only once it has run out (a dead leader) or was
 * given up (a leader that stops); the elector says `elected` and `deposed`; a confined role can
 * neither read the leader's row nor take the lead.
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'kysely';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaderElector } from '../../src/fleet/elector.js';
import { askToLead, currentLeader, resignLead } from '../../src/fleet/leader.js';
import { databaseUrl, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const db = () => database.current.handle.db;
const ROLE = `leader_books_${randomBytes(4).toString('hex')}`;

/** The leader's lease ran out (its daemon died a lease ago): by the database's clock, no sleep. */
const runOut = () => sql`update fleet_leader set expires_at = now() - interval '1 second'`.execute(db());

beforeEach(async () => {
  await sql`delete from fleet_leader`.execute(db());
});

afterAll(async () => {
  const admin = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    const [found] = await admin`select 1 from pg_roles where rolname = ${ROLE}`;
    if (found) {
      await admin.unsafe(`drop owned by ${ROLE}`);
      await admin.unsafe(`drop role ${ROLE}`);
    }
  } finally {
    await admin.end();
  }
});

describe('the lease of the fleet leader', () => {
  it('one daemon leads; the others are told who; the leader renews and keeps its election time', async () => {
    expect(await askToLead(db(), 'daemon a', 30)).toEqual({ leads: true, leader: 'daemon a' });
    const first = await currentLeader(db());
    expect(await askToLead(db(), 'daemon b', 30)).toEqual({ leads: false, leader: 'daemon a' });
    expect(await askToLead(db(), 'daemon a', 30)).toEqual({ leads: true, leader: 'daemon a' });
    const renewed = await currentLeader(db());
    expect(renewed?.daemonId).toBe('daemon a');
    expect(renewed?.electedAt).toEqual(first?.electedAt);
    expect(renewed!.expiresAt.getTime()).toBeGreaterThanOrEqual(first!.expiresAt.getTime());
  });

  it('a lease run out goes to the next daemon to ask, a new election; the old leader finds it lost', async () => {
    await askToLead(db(), 'daemon a', 30);
    const before = await currentLeader(db());
    await runOut();
    expect(await currentLeader(db())).toBeUndefined();
    expect(await askToLead(db(), 'daemon b', 30)).toEqual({ leads: true, leader: 'daemon b' });
    expect((await currentLeader(db()))!.electedAt.getTime()).toBeGreaterThanOrEqual(before!.electedAt.getTime());
    expect(await askToLead(db(), 'daemon a', 30)).toEqual({ leads: false, leader: 'daemon b' });
  });

  it('a leader that resigns leaves the lead to the next daemon at once; resigning another’s does nothing', async () => {
    await askToLead(db(), 'daemon a', 30);
    await resignLead(db(), 'daemon b');
    expect((await currentLeader(db()))?.daemonId).toBe('daemon a');
    await resignLead(db(), 'daemon a');
    expect(await askToLead(db(), 'daemon b', 30)).toEqual({ leads: true, leader: 'daemon b' });
  });

  it('daemons asking at the same moment elect exactly one', async () => {
    const asked = await Promise.all(
      Array.from({ length: 8 }, (_, i) => askToLead(database.current.handle.db, `daemon ${i}`, 30)),
    );
    expect(asked.filter((answer) => answer.leads)).toHaveLength(1);
    const leader = asked.find((answer) => answer.leads)!.leader;
    expect(asked.every((answer) => answer.leader === leader || answer.leader === undefined)).toBe(true);
  });
});

describe('the elector', () => {
  it('says elected once, keeps leading while it renews, and says deposed when another took the lapsed lease', async () => {
    const a = new LeaderElector(db(), 'elector a', 30);
    const b = new LeaderElector(db(), 'elector b', 30);
    const elected = once(a, 'elected');
    let electedAgain = 0;
    expect(await a.ask()).toBe(true);
    await elected;
    a.on('elected', () => electedAgain++);
    expect(await a.ask()).toBe(true);
    expect(electedAgain).toBe(0);
    expect(a.leads).toBe(true);
    expect(await b.ask()).toBe(false);
    expect(b.leads).toBe(false);

    await runOut();
    const bElected = once(b, 'elected');
    expect(await b.ask()).toBe(true);
    await bElected;
    const deposed = once(a, 'deposed');
    expect(await a.ask()).toBe(false);
    expect(await deposed).toEqual(['elector b']);
    expect(a.leads).toBe(false);

    // b stops: it resigns, and a leads at its next question.
    await b.resign();
    expect(b.leads).toBe(false);
    expect(await a.ask()).toBe(true);
  });

  it('leads, for its duties, only while its last lease lives by its own clock', async () => {
    const elector = new LeaderElector(db(), 'elector short', 1);
    expect(await elector.ask()).toBe(true);
    expect(elector.leads).toBe(true);
    // A daemon stopped past its lease (SIGSTOP) that comes back does not act on the lease it had.
    const later = performance.now() + 1100;
    const clock = vi.spyOn(performance, 'now').mockReturnValue(later);
    try {
      expect(elector.leads).toBe(false);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('a confined role', () => {
  it('sees no leader row and cannot take or give up the lead', async () => {
    const { id } = await db()
      .insertInto('accounts')
      .values({ name: 'leader-acme' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(id).toBeGreaterThan(0);
    await sql.raw(`create role ${ROLE} login password 'leader-pw'`).execute(db());
    await sql`select grant_account('leader-acme', ${ROLE})`.execute(db());
    await askToLead(db(), 'daemon a', 30);
    const url = new URL(databaseUrl());
    url.username = ROLE;
    url.password = 'leader-pw';
    const confined = postgres(url.toString(), {
      max: 1,
      onnotice: () => undefined,
      connection: { search_path: database.current.schema },
    });
    try {
      expect(await confined`select * from fleet_leader`).toHaveLength(0);
      await expect(confined`update fleet_leader set daemon_id = 'mine', expires_at = 'infinity'`).rejects.toThrow(
        /permission denied/,
      );
      await expect(
        confined`insert into fleet_leader (duty, daemon_id, expires_at) values ('maintenance', 'mine', 'infinity')`,
      ).rejects.toThrow(/permission denied/);
      await expect(confined`delete from fleet_leader`).rejects.toThrow(/permission denied/);
      await expect(confined`select * from fleet_leader for update`).rejects.toThrow(/permission denied/);
    } finally {
      await confined.end();
    }
    expect((await currentLeader(db()))?.daemonId).toBe('daemon a');
  });
});
