/**
 * A daemon's part in electing the fleet's leader (leader.ts): at each heartbeat it asks to lead,
 * which takes a free or run-out lease and renews its own. It says `elected` when it takes the lead
 * and `deposed` when it finds it lost (another daemon took the lease while it could not renew).
 *
 * It leads, as far as its duties are concerned, only while the lease it last renewed lives by its
 * own monotonic clock: a daemon stopped (SIGSTOP) past its lease that comes back does not run a
 * maintenance duty on the strength of a lease another daemon may hold by now.
 */
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { askToLead, resignLead } from './leader.js';

export interface ElectorEvents {
  /** This daemon took the lead. */
  elected: [];
  /** This daemon no longer leads (`leader`: who does, if anyone). */
  deposed: [leader: string | undefined];
}

export class LeaderElector extends EventEmitter<ElectorEvents> {
  /** performance.now() until which the last renewed lease lives; -Infinity: not leading. */
  private leadsUntil = Number.NEGATIVE_INFINITY;
  private leading = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly daemonId: string,
    private readonly leaseSeconds: number,
  ) {
    super();
  }

  /** Whether this daemon leads now (see the module comment). */
  get leads(): boolean {
    return this.leading && performance.now() < this.leadsUntil;
  }

  /** Asks to lead (at each heartbeat); returns whether this daemon leads. A failure is thrown. */
  async ask(): Promise<boolean> {
    const asked = performance.now();
    const { leads, leader } = await askToLead(this.db, this.daemonId, this.leaseSeconds);
    if (leads) {
      // Counted from before the question: the database's lease began no earlier.
      this.leadsUntil = asked + this.leaseSeconds * 1000;
      if (!this.leading) {
        this.leading = true;
        this.emit('elected');
      }
    } else this.depose(leader);
    return leads;
  }

  /** Gives the lead up (a daemon that stops), so that the next daemon to ask takes it at once. */
  async resign(): Promise<void> {
    const was = this.leading;
    this.depose(undefined);
    if (was) await resignLead(this.db, this.daemonId);
  }

  private depose(leader: string | undefined): void {
    this.leadsUntil = Number.NEGATIVE_INFINITY;
    if (!this.leading) return;
    this.leading = false;
    this.emit('deposed', leader);
  }
}
