/**
 * The migrations' statements sent in batches: a fresh schema replays every migration, about 900
 * statements, and one round trip each was most of a first start (about 0.85 s, of which 0.35 s of
 * this process's CPU for the driver's work per statement). A migration sees a Kysely handle
 * whose definitions (`create`, `alter`, `comment`, `grant`, `revoke` without parameters, which
 * return nothing) are kept and sent as one text, by the simple protocol, just before the next
 * statement that is not one, and at the migration's end; every other statement goes as before.
 *
 * So the order of the statements is kept, and all run in the migration transaction; what changes
 * is when a definition's error comes back: with the batch, at the next other statement. `drop`
 * is not batched, as a migration may catch a drop's refusal to say what stands in the way
 * (0012's dropViewsOnKeys).
 *
 * Why our own (about 60 lines): Kysely has no batching, and postgres.js pipelines only queries
 * issued without awaiting each other, which the frozen migrations do not do.
 */
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type Transaction,
} from 'kysely';

/** A statement that defines or changes an object and returns nothing; leading comments allowed. */
const DEFINITION = /^\s*(?:--[^\n]*\n\s*)*(?:create|alter|comment|grant|revoke)\s/i;

/** The migration transaction's connection, holding definitions back until something else is sent. */
class DefinitionBatch implements DatabaseConnection {
  private pending: string[] = [];

  constructor(private readonly trx: Transaction<any>) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query.parameters.length === 0 && DEFINITION.test(query.sql)) {
      this.pending.push(query.sql);
      return { rows: [] };
    }
    await this.flush();
    return this.trx.executeQuery<R>(query);
  }

  // biome-ignore lint/correctness/useYield: no migration streams; refused plainly
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('a migration cannot stream a query');
  }

  /** Sends what is held, each statement on lines of its own (a statement may end in a comment). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n;\n');
    this.pending = [];
    await this.trx.executeQuery(CompiledQuery.raw(text));
  }
}

/** A driver of one connection, inside a transaction it did not begin: a migration begins none. */
class InsideTransaction implements Driver {
  constructor(private readonly connection: DatabaseConnection) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('a migration runs in the migration transaction and begins none of its own');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/**
 * Runs `step` with a handle on `trx` that batches definitions (see above), and sends the last
 * batch before it returns.
 */
export async function withDefinitionBatch<T>(trx: Transaction<any>, step: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const batch = new DefinitionBatch(trx);
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new InsideTransaction(batch),
      createIntrospector: (handle) => new PostgresIntrospector(handle),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const result = await step(db);
  await batch.flush();
  return result;
}
