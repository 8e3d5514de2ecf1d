/**
 * Read ahead, conclude behind: the pipelining of a run's entities (see pullAll in run.ts) as two
 * small pieces. `Ahead` holds a task begun before its turn (the next entity's plan and first
 * page); `Behind` holds one task finishing while the next goes on (an entity concluding on the
 * run's connection while the next is read), taken in order when awaited.
 */

/** A task begun ahead of its turn, taken when its turn comes. */
export class Ahead<T> {
  private task: Promise<T | undefined> | undefined;

  /** Begins it, unless one is begun already; its failure goes to `onError` and gives undefined. */
  begin(make: () => Promise<T>, onError: (error: unknown) => void): void {
    this.task ??= make().catch((error: unknown) => {
      onError(error);
      return undefined;
    });
  }

  /** What was begun (undefined if nothing), waited for; nothing is begun any more. */
  async take(): Promise<T | undefined> {
    const task = this.task;
    this.task = undefined;
    return task;
  }
}

/** One task finishing behind what goes on meanwhile, and what is done with its result. */
export class Behind<T> {
  private pending: { result: Promise<T>; take: (result: T) => Promise<void> } | undefined;

  begin(result: Promise<T>, take: (result: T) => Promise<void>): void {
    result.catch(() => {}); // awaited by settle, or by drain
    this.pending = { result, take };
  }

  /** Waits for it and takes its result; if either fails, waits for `first` before throwing. */
  async settle(first?: Promise<unknown>): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    try {
      await pending.take(await pending.result);
    } catch (error) {
      await first;
      throw error;
    }
  }

  /** After a failure elsewhere: lets it finish first, whatever comes of it. */
  async drain(): Promise<void> {
    await this.pending?.result.catch(() => {});
  }
}
