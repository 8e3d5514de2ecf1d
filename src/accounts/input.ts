/**
 * What a person gives the `accounts` commands, checked before anything is opened: the API address
 * (by the INVOICING_API_URL setting's own parser, so both accept the same addresses), the user,
 * and the API key, read from standard input or a named environment variable, never from the
 * command line (where `ps` and the shell's history would show it).
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { settingsSchema } from '../config.js';
import { UsageError } from '../errors.js';
import { registerSecret } from '../log.js';
import { SETTINGS, allowedValues } from '../settings.js';
import { MIN_SECRET_LENGTH } from './secret.js';

/** The address, as the INVOICING_API_URL setting would take it (a trailing `/` dropped). */
export function checkApiUrl(text: string, label = '--api-url'): string {
  const parsed = settingsSchema.shape[SETTINGS.api.url.env]!.safeParse(text);
  if (text.trim() === '' || !parsed.success)
    throw new UsageError(`${label}: must be ${allowedValues(SETTINGS.api.url)}`);
  return parsed.data as string;
}

export function checkApiUser(text: string, label = '--api-user'): string {
  const user = text.trim();
  if (user === '') throw new UsageError(`${label}: must not be empty (the user name of the account in the service)`);
  return user;
}

/**
 * Remembers a key so that no log line or error shows it, nor the Basic-auth header made of it
 * (as config.ts does for INVOICING_API_KEY).
 */
export function registerKey(apiKey: string, user?: string): void {
  registerSecret(apiKey);
  if (user) registerSecret(Buffer.from(`${user}:${apiKey}`).toString('base64'));
}

export interface KeySource {
  apiKeyStdin?: boolean;
  apiKeyEnv?: string;
}

/** Which of the two sources is given: exactly one, else a UsageError saying so. */
export function checkKeySource(source: KeySource): void {
  if (source.apiKeyStdin === true && source.apiKeyEnv !== undefined)
    throw new UsageError('--api-key-stdin and --api-key-env: give one of them, not both');
  if (source.apiKeyStdin !== true && source.apiKeyEnv === undefined)
    throw new UsageError(
      'the API key: give --api-key-stdin (and the key on standard input) or --api-key-env VAR (the name of a variable that holds it); never the key itself on the command line',
    );
}

/** The key from the source checkKeySource accepted, registered as a secret the moment it is read. */
export async function readApiKey(
  source: KeySource,
  stdin: Readable = process.stdin,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  checkKeySource(source);
  if (source.apiKeyEnv !== undefined) {
    const key = (env[source.apiKeyEnv] ?? '').trim();
    registerSecret(key);
    if (key === '') throw new UsageError(`--api-key-env ${source.apiKeyEnv}: that variable is not set or empty`);
    return key;
  }
  const key = (await firstLine(stdin)).trim();
  registerSecret(key);
  if (key === '') throw new UsageError('--api-key-stdin: standard input held no key (its first line was empty)');
  return key;
}

/** The first line of a stream (all of it when it has no newline); stops reading there. */
export async function firstLine(stream: Readable): Promise<string> {
  if ((stream as { isTTY?: boolean }).isTTY) process.stderr.write('API key (one line, then Enter): ');
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    const end = text.search(/\r?\n/);
    if (end >= 0) {
      // A terminal stays open after the line: stop reading so the process can end.
      stream.destroy();
      return text.slice(0, end);
    }
  }
  return text;
}

export interface NewSecretSource {
  newSecretEnv?: string;
  newSecretFile?: string;
}

/** The secret `rotate-secret` seals under: from a variable or a file's first line, at least 32 characters. */
export function readNewSecret(source: NewSecretSource, env: NodeJS.ProcessEnv = process.env): string {
  const { newSecretEnv, newSecretFile } = source;
  if ((newSecretEnv === undefined) === (newSecretFile === undefined))
    throw new UsageError('the new secret: give one of --new-secret-env VAR or --new-secret-file FILE');
  const label = newSecretEnv !== undefined ? `--new-secret-env ${newSecretEnv}` : `--new-secret-file ${newSecretFile}`;
  let secret: string;
  if (newSecretEnv !== undefined) secret = (env[newSecretEnv] ?? '').trim();
  else {
    try {
      secret = readFileSync(newSecretFile!, 'utf8').split(/\r?\n/)[0]!.trim();
    } catch (error) {
      throw new UsageError(`${label}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  registerSecret(secret);
  if (secret.length < MIN_SECRET_LENGTH)
    throw new UsageError(
      `${label}: the new secret must be at least ${MIN_SECRET_LENGTH} characters (it has ${secret.length}), e.g. the output of: openssl rand -base64 48`,
    );
  return secret;
}
