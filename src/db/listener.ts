/**
 * LISTEN that survives a lost connection. postgres.js re-issues a LISTEN after its connection
 * closes, but only once: if the database is still down at that moment, the subscription is
 * silently gone and a worker waiting for NOTIFY never wakes again. This listener owns its
 * connection and keeps trying, with backoff, until it listens again, then says so (`onListening`),
 * so its user can look for what was announced while it could not hear. It never fails: while the
 * database cannot be reached it reports each failed try (`onError`) and tries again.
 */
import postgres from 'postgres';

export interface ListenerOptions {
  /** Connection options of the listening connection (the same server and settings as the pool). */
  connection: postgres.Options<Record<string, postgres.PostgresType>>;
  /** Called after every successful LISTEN, the first one included. */
  onListening?: () => void;
  /** Called when listening again fails (it keeps trying). */
  onError?: (error: unknown) => void;
}

/** At most this long between tries, so a runner hears again within seconds of the database's return. */
const MAX_BACKOFF_MS = 5_000;

export async function listenResiliently(
  target: string | postgres.Options<Record<string, postgres.PostgresType>>,
  channel: string,
  onNotify: (payload: string) => void,
  options: ListenerOptions,
): Promise<() => Promise<void>> {
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  // `onnotify` is an option of postgres.js that its type declarations leave out.
  const notifyOption = {
    onnotify: (name: string, payload: string) => {
      if (name === channel) onNotify(payload);
    },
  } as Record<string, unknown>;
  const listenerOptions = {
    ...options.connection,
    ...notifyOption,
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onclose: () => {
      if (!stopped) retry(0);
    },
  };
  const client =
    typeof target === 'string' ? postgres(target, listenerOptions) : postgres({ ...target, ...listenerOptions });
  const subscribe = async () => {
    await client.unsafe(`listen "${channel.replace(/"/g, '""')}"`);
    failures = 0;
    options.onListening?.();
  };
  const retry = (delayMs: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (stopped) return;
      subscribe().catch((error: unknown) => {
        failures++;
        options.onError?.(error);
        if (!stopped) retry(Math.min(MAX_BACKOFF_MS, 250 * 2 ** failures));
      });
    }, delayMs);
    timer.unref();
  };
  // The first LISTEN too: a database that is down now is retried until it answers.
  await subscribe().catch((error: unknown) => {
    failures++;
    options.onError?.(error);
    retry(250);
  });
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client.end({ timeout: 1 }).catch(() => undefined);
  };
}
