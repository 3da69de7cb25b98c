import { ipKeyGenerator } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import { addressKey, ipNetwork, principalKey } from './keys.js';

const ADDRESSES = [
  '203.0.113.7',
  '2001:db8::1',
  '2001:db8:1234:5678:9abc:def0:1234:5678',
  '2001:0DB8:00FF:ABCD::',
  '::1',
  '::',
  '::ffff:203.0.113.7',
  '::ffff:cb00:7107',
  '::203.0.113.7',
  'fe80::1%eth0',
  '2001:db8:ff00::/40',
  'not an address',
  '',
];

describe("ipNetwork is express-rate-limit 8's ipKeyGenerator", () => {
  it.each(ADDRESSES.flatMap((ip) => ([56, 64, 48, false] as const).map((subnet) => [ip, subnet] as const)))(
    '%s with /%s',
    (ip, subnet) => {
      expect(ipNetwork(ip, subnet)).toBe(ipKeyGenerator(ip, subnet));
    },
  );
});

describe('keys', () => {
  it.each([
    [undefined, 'ip:'],
    ['203.0.113.7', 'ip:203.0.113.7'],
    ['2001:db8:1234:5678::1', 'ip:2001:db8:1234:5600::/56'],
    ['2001:db8:1234:56ff:ffff::1', 'ip:2001:db8:1234:5600::/56'],
    ['::ffff:203.0.113.7', 'ip:203.0.113.7'],
  ])('addressKey(%s) is %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it('addressKey with a /64 network', () => {
    expect(addressKey('2001:db8:1234:5678::1', 64)).toBe('ip:2001:db8:1234:5678::/64');
  });

  it.each([
    ['demo', '203.0.113.7', 'client:demo'],
    [undefined, '203.0.113.7', 'ip:203.0.113.7'],
    ['', '2001:db8::1', 'ip:2001:db8::/56'],
  ])('principalKey(%s, %s) is %s', (clientId, ip, key) => {
    expect(principalKey(clientId, ip)).toBe(key);
  });
});
