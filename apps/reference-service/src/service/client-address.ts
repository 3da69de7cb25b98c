/**
 * The client's address behind proxies (`TRUST_PROXY`), framework-free: one decision that the
 * Express, Fastify and Hono wirings all use for the rate-limit keys, and for which peers may say
 * through `X-Forwarded-Proto` that the client used HTTPS.
 *
 * The chain is the socket's peer followed by the `X-Forwarded-For` entries from right to left. Each
 * proxy appends the address it received the request from, so the right end was written by the
 * proxies and the left end by whoever sent the request first: the client can put anything there.
 * The chain is therefore read from the right, and only as far as the hops are trusted proxies; the
 * first address that is not a trusted proxy is the client. The left-most entry is never believed
 * for being the left-most.
 */
import { BlockList, isIP } from 'node:net';

/**
 * Which peers are proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: the number
 * of proxies in front of the service (`{ hops: 0 }`: none, the socket's peer is the client), or the
 * proxies' addresses (`10.0.0.2`), CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names
 * {@link PROXY_RANGE_NAMES} (`loopback`, `linklocal`, `uniquelocal`).
 *
 * @example
 * ```ts
 * const behindOneProxy: ProxyTrust = { hops: 1 };
 * const byAddress: ProxyTrust = { proxies: ['10.0.0.0/8', 'loopback'] };
 * ```
 */
export type ProxyTrust = { readonly hops: number } | { readonly proxies: readonly string[] };

/** The ranges behind each name a proxy list may use (the names of Express's `trust proxy`). */
export const PROXY_RANGE_NAMES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** One address or subnet of a proxy list. */
interface Range {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** `a.b.c.d` for an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack socket reports IPv4 peers). */
function unmapped(address: string): string {
  return address.length > 7 && address.slice(0, 7).toLowerCase() === '::ffff:' && isIP(address.slice(7)) === 4
    ? address.slice(7)
    : address;
}

/** The ranges one proxy-list entry stands for, or undefined when it is no address, CIDR range or name. */
function rangesOf(entry: string): readonly Range[] | undefined {
  const named = Object.hasOwn(PROXY_RANGE_NAMES, entry) ? PROXY_RANGE_NAMES[entry] : undefined;
  if (named) return named.flatMap((range) => rangesOf(range) ?? []);
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = address.includes('%') ? 0 : isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
  return [{ address, prefix: Number(prefixText), family: version === 4 ? 'ipv4' : 'ipv6' }];
}

/**
 * True when `entry` can stand in a proxy list: an IPv4 or IPv6 address, a CIDR range of one
 * (`10.0.0.0/8`, `::1/128`), or one of {@link PROXY_RANGE_NAMES}.
 *
 * @example
 * ```ts
 * isProxyEntry('10.0.0.0/8'); // true
 * isProxyEntry('10.0.0.0/33'); // false
 * ```
 */
export function isProxyEntry(entry: string): boolean {
  return rangesOf(entry) !== undefined;
}

/**
 * The IP address an `X-Forwarded-For` entry (or a socket address) names, or undefined when it names
 * none (`unknown`, an obfuscated identifier, garbage). A port is dropped (`198.51.100.7:5678`,
 * `[2001:db8::1]:443`): a client picks a new source port with every connection, so keeping it would
 * give every connection a rate-limit bucket of its own. IPv4-mapped IPv6 addresses become IPv4.
 *
 * @example
 * ```ts
 * addressOf('[2001:db8::1]:443'); // '2001:db8::1'
 * addressOf('::ffff:127.0.0.1'); // '127.0.0.1'
 * addressOf('unknown'); // undefined
 * ```
 */
export function addressOf(entry: string): string | undefined {
  let address = entry;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1] as string;
  else if (/^[\d.]+:\d{1,5}$/.test(address)) address = address.slice(0, address.indexOf(':'));
  address = unmapped(address);
  return isIP(address) === 0 ? undefined : address;
}

/**
 * The entries of `X-Forwarded-For`, left to right: several header lines are one list joined in
 * their order (as Node joins them), each entry trimmed, empty entries left out.
 *
 * @example
 * ```ts
 * forwardedFor(['203.0.113.9, 10.0.0.1', ' 10.0.0.2 ,']); // ['203.0.113.9', '10.0.0.1', '10.0.0.2']
 * ```
 */
export function forwardedFor(header: string | readonly string[] | undefined): string[] {
  if (header === undefined) return [];
  const joined = typeof header === 'string' ? header : header.join(',');
  return joined
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * Is the address `hop` places from the right of the chain a trusted proxy? Hop 0 is the socket's
 * peer, hop 1 the last `X-Forwarded-For` entry, and so on; `address` is undefined for an entry that
 * names no address.
 */
type TrustTest = (address: string | undefined, hop: number) => boolean;

function trustTest(trust: ProxyTrust): TrustTest {
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  const list = new BlockList();
  for (const entry of trust.proxies) {
    const ranges = rangesOf(entry);
    if (ranges === undefined) throw new TypeError(`not a proxy address, CIDR range or name: "${entry}"`);
    for (const { address, prefix, family } of ranges) list.addSubnet(address, prefix, family);
  }
  return (address) => address !== undefined && list.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

/** The client address decisions of one `TRUST_PROXY` setting ({@link proxyPolicy}). */
export interface ProxyPolicy {
  /**
   * The client's address: from the socket's peer (`remoteAddress`) leftwards through the
   * `X-Forwarded-For` entries (`forwarded`, the header's value or values) while the current hop is
   * a trusted proxy; the first address that is not one is the client (or the left-most entry when
   * every hop is trusted). It is an IP address ({@link addressOf}), or undefined when that entry
   * names none or the socket has no peer address.
   */
  clientAddress(
    remoteAddress: string | undefined,
    forwarded: string | readonly string[] | undefined,
  ): string | undefined;
  /** True when the socket's peer is a trusted proxy, so its `X-Forwarded-Proto` is believed. */
  trustsPeer(remoteAddress: string): boolean;
}

/**
 * The client address decisions for `trust`, compiled once per app.
 *
 * @example
 * ```ts
 * const policy = proxyPolicy({ hops: 1 });
 * policy.clientAddress('127.0.0.1', '203.0.113.9, 198.51.100.7'); // '198.51.100.7'
 * policy.trustsPeer('127.0.0.1'); // true
 * ```
 */
export function proxyPolicy(trust: ProxyTrust): ProxyPolicy {
  const trusted = trustTest(trust);
  return {
    clientAddress(remoteAddress, forwarded) {
      if (remoteAddress === undefined) return undefined;
      let current = addressOf(remoteAddress);
      if (!trusted(current, 0)) return current;
      const chain = forwardedFor(forwarded);
      for (let i = chain.length - 1, hop = 1; i >= 0; i -= 1, hop += 1) {
        current = addressOf(chain[i] as string);
        if (!trusted(current, hop)) return current;
      }
      return current;
    },
    trustsPeer: (remoteAddress) => trusted(addressOf(remoteAddress), 0),
  };
}
