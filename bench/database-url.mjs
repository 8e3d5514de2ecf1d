// The Postgres a benchmark works in (DATABASE_URL), or a one-line error and exit code 2.
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `script`: the benchmark's import.meta.url, to name it in the error. */
export function benchDatabaseUrl(script) {
  const url = process.env.DATABASE_URL;
  if (url) return url;
  console.error(
    `bench/${basename(fileURLToPath(script))}: set DATABASE_URL to a local Postgres the user may create schemas in, e.g. postgres://postgres@127.0.0.1:5432/postgres`,
  );
  process.exit(2);
}
