/**
 * API keys at rest: sealed with AES-256-GCM (node:crypto) under a key derived from the master
 * secret (ACCOUNTS_SECRET or ACCOUNTS_SECRET_FILE). A sealed key is `v1:` + base64 of
 * salt (16 bytes) | iv (12) | tag (16) | ciphertext: the salt makes each sealing derive its own
 * key, the tag makes a wrong master secret or a changed value fail instead of decrypting to noise.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
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
      `account ${account}: ACCOUNTS_SECRET does not open its API key; set the master secret the key was added under (or add the key again)`,
    );
  }
}

/**
 * The master secret, from ACCOUNTS_SECRET or the first line of ACCOUNTS_SECRET_FILE; a
 * ConfigError naming what to set when neither gives one of at least 32 characters. `purpose`
 * completes "… is required to …".
 */
export function masterSecret(config: Config, purpose = 'store API keys of accounts'): string {
  const { secret, secretFile } = config.accounts;
  let value = secret;
  if (value === undefined && secretFile !== undefined) {
    try {
      value = readFileSync(secretFile, 'utf8').split(/\r?\n/)[0]!.trim();
    } catch (error) {
      throw new ConfigError(
        `ACCOUNTS_SECRET_FILE: cannot read ${secretFile} (${(error as NodeJS.ErrnoException).code ?? 'error'}); name a readable file holding the master secret`,
      );
    }
    registerSecret(value);
  }
  if (value === undefined || value === '')
    throw new ConfigError(
      `ACCOUNTS_SECRET: is required to ${purpose}; set it (or ACCOUNTS_SECRET_FILE) to a random text of at least ${MIN_SECRET_LENGTH} characters, e.g. the output of: openssl rand -base64 48`,
    );
  if (value.length < MIN_SECRET_LENGTH)
    throw new ConfigError(`ACCOUNTS_SECRET: must be at least ${MIN_SECRET_LENGTH} characters (it has ${value.length})`);
  return value;
}
