/**
 * API keys at rest: sealed with AES-256-GCM (node:crypto) under a key derived from the master
 * secret (ACCOUNTS_SECRET or ACCOUNTS_SECRET_FILE). A sealed key is `v1:` + base64 of
 * salt (16 bytes) | iv (12) | tag (16) | ciphertext: the salt makes each sealing derive its own
 * key, the tag makes a wrong master secret or a changed value fail instead of decrypting to noise.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { ConfigError, UsageError } from '../errors.js';
import { checkPrivateFile } from './private-file.js';
import { registerSecret } from '../log.js';

const VERSION = 'v1:';
export const MIN_SECRET_LENGTH = 32;

/**
 * HKDF, not a password hash: the master secret is a random text of at least 32 characters, and a
 * thousand accounts are opened at every start (scrypt would cost a second per twenty).
 */
function derive(secret: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, 'invoice-mirror api key', 32));
}

export function sealKey(apiKey: string, secret: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(secret, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([salt, iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** The key, or a ConfigError saying the master secret does not open it (never the value). */
export function openKey(sealed: string, secret: string, account: string): string {
  const bytes = sealed.startsWith(VERSION) ? Buffer.from(sealed.slice(VERSION.length), 'base64') : Buffer.alloc(0);
  if (bytes.length < 45)
    throw new ConfigError(`account ${account}: its stored API key is not one this version seals; add the key again`);
  const decipher = createDecipheriv('aes-256-gcm', derive(secret, bytes.subarray(0, 16)), bytes.subarray(16, 28));
  decipher.setAuthTag(bytes.subarray(28, 44));
  try {
    const key = Buffer.concat([decipher.update(bytes.subarray(44)), decipher.final()]).toString('utf8');
    registerSecret(key);
    return key;
  } catch {
    throw new ConfigError(
      `account ${account}: ACCOUNTS_SECRET does not open its API key; set it to the master secret the key was sealed with (a new one cannot open it), or add the key again with 'invoice-mirror accounts add ${account} …'`,
    );
  }
}

/**
 * What the master secret is asked for: to open keys already sealed (`open`: only the secret they
 * were sealed with does), or to seal new ones (`seal`: the mirror's secret, or a new one for a
 * mirror holding no sealed key yet).
 */
export type SecretUse = 'open' | 'seal';

/** The advice for a missing or wrong secret: a new random one never opens keys sealed under another. */
function secretAdvice(use: SecretUse, reopen: string): string {
  const sealedWith = `the master secret the stored keys were sealed with (a new one cannot open them; without it, ${reopen})`;
  return use === 'open'
    ? sealedWith
    : `${sealedWith}; only a mirror with no stored key yet takes a new random text of at least ${MIN_SECRET_LENGTH} characters, e.g. the output of: openssl rand -base64 48`;
}

/**
 * The master secret, from ACCOUNTS_SECRET or the first line of ACCOUNTS_SECRET_FILE (which must be
 * its owner's alone, as the CSV of keys must); a ConfigError naming what to set when neither gives
 * one of at least 32 characters. `purpose` completes "… is required to …"; `reopen` says how to do
 * without the old secret (default: add each account's key again).
 */
export function masterSecret(
  config: Config,
  purpose = 'store API keys of accounts',
  use: SecretUse = 'seal',
  reopen = "add each account's key again with 'invoice-mirror accounts add'",
): string {
  const { secret, secretFile } = config.accounts;
  let value = secret;
  if (value === undefined && secretFile !== undefined) value = readSecretFile(secretFile);
  if (value === undefined || value === '')
    throw new ConfigError(
      `ACCOUNTS_SECRET: is required to ${purpose}; set it (or ACCOUNTS_SECRET_FILE) to ${secretAdvice(use, reopen)}`,
    );
  if (value.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      `ACCOUNTS_SECRET: must be at least ${MIN_SECRET_LENGTH} characters (it has ${value.length})${use === 'open' ? `; set it to ${secretAdvice(use, reopen)}` : ''}`,
    );
  return value;
}

/** The first line of ACCOUNTS_SECRET_FILE, refused when others may read the file. */
function readSecretFile(file: string): string {
  let value: string;
  try {
    value = readFileSync(file, 'utf8').split(/\r?\n/)[0]!.trim();
    registerSecret(value);
  } catch (error) {
    throw new ConfigError(
      `ACCOUNTS_SECRET_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); name a readable file holding the master secret`,
    );
  }
  try {
    checkPrivateFile(file, 'the master secret');
  } catch (error) {
    if (error instanceof UsageError) throw new ConfigError(`ACCOUNTS_SECRET_FILE: ${error.message}`);
    throw error;
  }
  return value;
}
