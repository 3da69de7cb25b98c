/**
 * service/client-address.ts: the client address behind proxies, for TRUST_PROXY as a hop count and as a
 * list of proxy addresses and ranges. Real socket addresses and X-Forwarded-For values in, the exact
 * address out; the left-most entry, which the client writes, is never believed for being left-most.
 */
import { describe, expect, it } from 'vitest';
import {
  addressOf,
  forwardedFor,
  isProxyEntry,
  type ProxyTrust,
  proxyPolicy,
} from '../src/service/client-address.js';

type Row = readonly [
  what: string,
  trust: ProxyTrust,
  remoteAddress: string | undefined,
  forwarded: string | readonly string[] | undefined,
  client: string | undefined,
];

const none: ProxyTrust = { hops: 0 };
const one: ProxyTrust = { hops: 1 };
const two: ProxyTrust = { hops: 2 };

describe('proxyPolicy(...).clientAddress', () => {
  it.each<Row>([
    // No proxy trusted: the socket's peer, whatever the header says.
    ['hops 0, no header', none, '203.0.113.9', undefined, '203.0.113.9'],
    ['hops 0, header ignored', none, '127.0.0.1', '198.51.100.7', '127.0.0.1'],
    ['hops 0, IPv4-mapped peer', none, '::ffff:127.0.0.1', '198.51.100.7', '127.0.0.1'],
    ['hops 0, IPv6 peer', none, '2001:db8::9', undefined, '2001:db8::9'],
    ['no peer address', one, undefined, '198.51.100.7', undefined],

    // One proxy: the last entry, the one the proxy wrote.
    ['hops 1, no header', one, '127.0.0.1', undefined, '127.0.0.1'],
    ['hops 1, one entry', one, '127.0.0.1', '198.51.100.7', '198.51.100.7'],
    ['hops 1, client-written first entry', one, '127.0.0.1', '203.0.113.1, 198.51.100.7', '198.51.100.7'],
    [
      'hops 1, long chain',
      one,
      '127.0.0.1',
      '203.0.113.1, 203.0.113.2, 10.0.0.5, 192.0.2.4, 198.51.100.7',
      '198.51.100.7',
    ],
    ['hops 1, IPv4-mapped peer', one, '::ffff:127.0.0.1', '203.0.113.1, 198.51.100.7', '198.51.100.7'],
    ['hops 1, IPv6 entry', one, '::1', '203.0.113.1, 2001:db8::7', '2001:db8::7'],
    ['hops 1, IPv4-mapped entry', one, '127.0.0.1', '::ffff:198.51.100.7', '198.51.100.7'],
    ['hops 1, two header lines in order', one, '127.0.0.1', ['203.0.113.1', '198.51.100.7'], '198.51.100.7'],
    ['hops 1, two header lines reversed', one, '127.0.0.1', ['198.51.100.7', '203.0.113.1'], '203.0.113.1'],
    [
      'hops 1, two lines of two entries',
      one,
      '127.0.0.1',
      ['203.0.113.1, 203.0.113.2', '192.0.2.4, 198.51.100.7'],
      '198.51.100.7',
    ],

    // Two proxies: the second entry from the right.
    ['hops 2, full chain', two, '10.0.0.2', '203.0.113.1, 198.51.100.7, 10.0.0.1', '198.51.100.7'],
    [
      'hops 2, long chain',
      two,
      '10.0.0.2',
      '203.0.113.1, 203.0.113.2, 203.0.113.3, 198.51.100.7, 10.0.0.1',
      '198.51.100.7',
    ],
    ['hops 2, chain shorter than the hops: its left end', two, '10.0.0.2', '198.51.100.7', '198.51.100.7'],
    ['hops 2, no header', two, '10.0.0.2', undefined, '10.0.0.2'],
    ['hops 2, a trusted hop that names no address', two, '10.0.0.2', '198.51.100.7, unknown', '198.51.100.7'],

    // What proxies write besides bare addresses.
    ['an unknown client', one, '127.0.0.1', '203.0.113.1, unknown', undefined],
    ['an obfuscated identifier', one, '127.0.0.1', '203.0.113.1, _hidden', undefined],
    ['IPv4 with a port', one, '127.0.0.1', '203.0.113.1, 198.51.100.7:5678', '198.51.100.7'],
    ['bracketed IPv6 with a port', one, '127.0.0.1', '203.0.113.1, [2001:db8::7]:443', '2001:db8::7'],
    ['bracketed IPv6', one, '127.0.0.1', '[2001:db8::7]', '2001:db8::7'],
    ['empty entries and spaces', one, '127.0.0.1', ' 203.0.113.1 ,, 198.51.100.7 , ', '198.51.100.7'],
    ['a tab around the entry', one, '127.0.0.1', '203.0.113.1,\t198.51.100.7\t', '198.51.100.7'],
    ['an empty header', one, '127.0.0.1', '', '127.0.0.1'],
    ['only commas', one, '127.0.0.1', ' , ,', '127.0.0.1'],
    ['an address with a space inside', one, '127.0.0.1', '203.0.113.1, 198.51.100.7 192.0.2.4', undefined],

    // A list of proxies: from the right while the hop is one of them.
    [
      'CIDR, the peer and one more proxy',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '203.0.113.1, 198.51.100.7, 10.0.0.1',
      '198.51.100.7',
    ],
    [
      'CIDR, an untrusted peer: header ignored',
      { proxies: ['10.0.0.0/8'] },
      '203.0.113.9',
      '198.51.100.7, 10.0.0.1',
      '203.0.113.9',
    ],
    [
      'CIDR, every hop trusted: the left end',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '10.0.0.7, 10.0.0.1',
      '10.0.0.7',
    ],
    [
      'CIDR, a client-written proxy address left of the client is not reached',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '10.9.9.9, 198.51.100.7, 10.0.0.1',
      '198.51.100.7',
    ],
    ['one address, another peer', { proxies: ['192.168.1.5'] }, '192.168.1.6', '198.51.100.7', '192.168.1.6'],
    [
      'one address, IPv4-mapped peer',
      { proxies: ['192.168.1.5'] },
      '::ffff:192.168.1.5',
      '198.51.100.7',
      '198.51.100.7',
    ],
    [
      'IPv6 CIDR',
      { proxies: ['2001:db8::/32'] },
      '2001:db8::1',
      '2001:db9::7, 2001:db8:ffff::2',
      '2001:db9::7',
    ],
    [
      '::1/128 does not cover IPv4 loopback',
      { proxies: ['::1/128'] },
      '::ffff:127.0.0.1',
      '198.51.100.7',
      '127.0.0.1',
    ],
    ['loopback, IPv6 peer', { proxies: ['loopback'] }, '::1', '203.0.113.1, 2001:db8::7', '2001:db8::7'],
    [
      'loopback, IPv4-mapped peer',
      { proxies: ['loopback'] },
      '::ffff:127.0.0.1',
      '203.0.113.1, 198.51.100.7',
      '198.51.100.7',
    ],
    [
      'uniquelocal',
      { proxies: ['uniquelocal'] },
      '172.16.5.4',
      '203.0.113.1, 198.51.100.7, 192.168.0.9, fd00::3',
      '198.51.100.7',
    ],
    ['linklocal', { proxies: ['linklocal'] }, 'fe80::1', '198.51.100.7, 169.254.0.3', '198.51.100.7'],
    [
      'several entries',
      { proxies: ['10.0.0.0/8', '192.168.1.5', '::1/128', 'loopback'] },
      '::1',
      '203.0.113.1, 198.51.100.7, 10.0.0.1, 192.168.1.5, 127.0.0.1',
      '198.51.100.7',
    ],
    [
      'an IPv4-mapped IPv6 range covers IPv4 addresses',
      { proxies: ['::ffff:10.0.0.0/104'] },
      '10.0.0.2',
      '198.51.100.7, 10.0.0.1',
      '198.51.100.7',
    ],
    [
      'a trusted hop with a port',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '198.51.100.7, 10.0.0.1:8080',
      '198.51.100.7',
    ],
    [
      'a hop that names no address stops the walk',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '198.51.100.7, unknown, 10.0.0.1',
      undefined,
    ],
  ])('%s', (_what, trust, remoteAddress, forwarded, client) => {
    expect(proxyPolicy(trust).clientAddress(remoteAddress, forwarded)).toBe(client);
  });
});

describe('proxyPolicy(...).trustsPeer (X-Forwarded-Proto is believed)', () => {
  it.each<readonly [ProxyTrust, string, boolean]>([
    [none, '127.0.0.1', false],
    [one, '127.0.0.1', true],
    [one, '203.0.113.9', true],
    [two, '10.0.0.2', true],
    [{ proxies: ['10.0.0.0/8'] }, '10.0.0.2', true],
    [{ proxies: ['10.0.0.0/8'] }, '::ffff:10.0.0.2', true],
    [{ proxies: ['10.0.0.0/8'] }, '11.0.0.1', false],
    [{ proxies: ['10.0.0.0/8'] }, '127.0.0.1', false],
    [{ proxies: ['loopback'] }, '::1', true],
    [{ proxies: ['loopback'] }, '127.0.0.9', true],
    [{ proxies: ['::1/128'] }, '127.0.0.1', false],
  ])('%j trusts %s: %s', (trust, peer, trusted) => {
    expect(proxyPolicy(trust).trustsPeer(peer)).toBe(trusted);
  });
});

describe('addressOf', () => {
  it.each<readonly [string, string | undefined]>([
    ['198.51.100.7', '198.51.100.7'],
    ['198.51.100.7:5678', '198.51.100.7'],
    ['2001:db8::7', '2001:db8::7'],
    ['[2001:db8::7]', '2001:db8::7'],
    ['[2001:db8::7]:443', '2001:db8::7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '::ffff:7f00:1'],
    ['unknown', undefined],
    ['_gazonk', undefined],
    ['198.51.100.7:', undefined],
    ['198.51.100.256', undefined],
    ['[198.51.100.7]', '198.51.100.7'],
    ['', undefined],
  ])('%j → %j', (entry, address) => {
    expect(addressOf(entry)).toBe(address);
  });
});

describe('forwardedFor', () => {
  it.each<readonly [string | readonly string[] | undefined, readonly string[]]>([
    [undefined, []],
    ['', []],
    ['198.51.100.7', ['198.51.100.7']],
    [' 203.0.113.1 ,, 198.51.100.7 , ', ['203.0.113.1', '198.51.100.7']],
    [
      ['203.0.113.1, 10.0.0.1', ' 10.0.0.2 ,'],
      ['203.0.113.1', '10.0.0.1', '10.0.0.2'],
    ],
    [['', '198.51.100.7'], ['198.51.100.7']],
  ])('%j → %j', (header, entries) => {
    expect(forwardedFor(header)).toEqual(entries);
  });
});

describe('isProxyEntry', () => {
  it.each([
    '10.0.0.0/8',
    '10.0.0.1/8',
    '192.168.1.5',
    '192.168.1.5/32',
    '0.0.0.0/0',
    '::1',
    '::1/128',
    'fd00::/8',
    '::ffff:10.0.0.1',
    '::ffff:10.0.0.0/104',
    'loopback',
    'linklocal',
    'uniquelocal',
  ])('%s is one', (entry) => {
    expect(isProxyEntry(entry)).toBe(true);
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '10.0.0.0/ 8',
    '10.0.0',
    'abc',
    '-1',
    '',
    'Loopback',
    'constructor',
    'fe80::1%eth0',
    '1.2.3.4:80',
    '[::1]',
  ])('%j is none', (entry) => {
    expect(isProxyEntry(entry)).toBe(false);
  });
});
