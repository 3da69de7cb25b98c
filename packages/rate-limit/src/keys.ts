import { isIPv6 } from 'node:net';
import { Address6 } from 'ip-address';

const IPV4_COMPATIBLE = new Address6('::/96');

/**
 * The part of a client address a limit counts by, exactly as express-rate-limit 8's
 * `ipKeyGenerator`: an IPv6 address by its network of `ipv6Subnet` bits (default /56, the block one
 * customer usually gets, so a client cannot step through its own addresses to reset its count),
 * written `2001:db8:1234:5600::/56`; an IPv4-mapped or IPv4-compatible IPv6 address as the IPv4
 * address it carries; anything else as given. `false` keeps IPv6 addresses whole.
 *
 * @example
 * ```ts
 * ipNetwork('2001:db8:1234:5678::1'); // '2001:db8:1234:5600::/56'
 * ipNetwork('::ffff:203.0.113.7'); // '203.0.113.7'
 * ```
 */
export function ipNetwork(ip: string, ipv6Subnet: number | false = 56): string {
  if (!isIPv6(ip)) return ip;
  const address = new Address6(ip);
  if (address.isMapped4() || (address.is4() && address.isInSubnet(IPV4_COMPATIBLE)))
    return address.to4().correctForm();
  return ipv6Subnet ? new Address6(`${ip}/${ipv6Subnet}`).networkForm() : ip;
}

/**
 * A key per client address, `ip:` + {@link ipNetwork}: for a limit that holds before (or without)
 * authentication, such as failed requests per address. An unknown address is `ip:`, one shared key.
 *
 * @example
 * ```ts
 * addressKey('203.0.113.7'); // 'ip:203.0.113.7'
 * addressKey('2001:db8::1'); // 'ip:2001:db8::/56'
 * ```
 */
export function addressKey(ip: string | undefined, ipv6Subnet: number | false = 56): string {
  return `ip:${ipNetwork(ip ?? '', ipv6Subnet)}`;
}

/**
 * A key per principal: `client:` + the authenticated client's id, else {@link addressKey} of the
 * address (anonymous requests count per address).
 *
 * @example
 * ```ts
 * principalKey('demo', '203.0.113.7'); // 'client:demo'
 * principalKey(undefined, '203.0.113.7'); // 'ip:203.0.113.7'
 * ```
 */
export function principalKey(clientId: string | undefined, ip: string | undefined): string {
  return clientId ? `client:${clientId}` : addressKey(ip);
}
