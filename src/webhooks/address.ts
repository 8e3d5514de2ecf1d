/**
 * Where a webhook may go. A receiver on a private, loopback, link-local or otherwise internal
 * address is refused unless WEBHOOKS_ALLOW_PRIVATE is on: a subscription must not turn the mirror
 * into a way to reach the machines beside it. Checked when a subscription is added (every address
 * its name resolves to) and again at each delivery, on the address the connection actually uses
 * (`guardedLookup`), so a name that resolves elsewhere later (DNS rebinding) is refused too.
 */
import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { UsageError } from '../errors.js';

const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is private, loopback, link-local or otherwise not on the internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

class PrivateAddressError extends Error {}

const refusal = (host: string, address: string) =>
  new PrivateAddressError(
    `${host} is a private, loopback or link-local address (${address}); webhooks go there only with WEBHOOKS_ALLOW_PRIVATE=true`,
  );

/** The URL of a new subscription, checked: http(s), and (unless allowed) not on a private address. */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`URL: '${url}' is not a URL; give one like https://example.com/hooks`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`URL: must be http or https, not ${parsed.protocol.replace(':', '')}`);
  if (parsed.username || parsed.password) throw new UsageError('URL: must not hold a user name or password');
  if (allowPrivate) return parsed;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((found) => found.address);
  } catch (error) {
    throw new UsageError(`URL: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const blocked = addresses.find(isPrivateAddress);
  if (blocked) throw new UsageError(`URL: ${refusal(host, blocked).message}`);
  return parsed;
}

/** A receiver's host given as an address is checked here; a name, by `guardedLookup` as it connects. */
export function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw refusal(host, host);
}

/** A `lookup` for the sockets of deliveries: resolves as usual, then refuses private addresses. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookupCallback(hostname, { ...options, all: true }, (error, found) => {
    const addresses = found as unknown as LookupAddress[];
    if (error) return (callback as (e: Error) => void)(error);
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
    if (blocked) return (callback as (e: Error) => void)(refusal(hostname, blocked.address));
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};
