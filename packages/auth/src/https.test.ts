import { errorHandler } from '@plumbline/errors/express';
import { EXPRESS_VERSIONS } from '@plumbline/test-utils';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { requireHttps } from './express.js';
import { isLoopback, isSecureRequest, type RequireHttpsOptions, type SecureRequestInput } from './index.js';

describe('isSecureRequest', () => {
  const proxy = '10.0.0.2';
  it.each<[string, RequireHttpsOptions, SecureRequestInput, boolean]>([
    ['TLS socket', {}, { encrypted: true, remoteAddress: '203.0.113.9' }, true],
    ['plain HTTP', { allowLoopback: false }, { encrypted: false, remoteAddress: '203.0.113.9' }, false],
    [
      'forwarded https, proxy not trusted',
      {},
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'https' },
      false,
    ],
    [
      'forwarded https, trustProxy true',
      { trustProxy: true },
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'https' },
      true,
    ],
    [
      'forwarded https, trusted list',
      { trustProxy: [proxy] },
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'https' },
      true,
    ],
    [
      'forwarded https, IPv4-mapped trusted',
      { trustProxy: [proxy] },
      { encrypted: false, remoteAddress: `::ffff:${proxy}`, forwardedProto: 'HTTPS' },
      true,
    ],
    [
      'forwarded https from an untrusted peer',
      { trustProxy: [proxy] },
      { encrypted: false, remoteAddress: '10.0.0.3', forwardedProto: 'https' },
      false,
    ],
    [
      'trust function',
      { trustProxy: (a) => a.startsWith('10.') },
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'https' },
      true,
    ],
    [
      'client-spoofed https before the proxy value',
      { trustProxy: true },
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'https, http' },
      false,
    ],
    [
      'forwarded http',
      { trustProxy: true },
      { encrypted: false, remoteAddress: proxy, forwardedProto: 'http' },
      false,
    ],
    ['loopback allowed', { allowLoopback: true }, { encrypted: false, remoteAddress: '127.0.0.1' }, true],
    [
      'loopback not allowed',
      { allowLoopback: false },
      { encrypted: false, remoteAddress: '127.0.0.1' },
      false,
    ],
    ['IPv6 loopback allowed', { allowLoopback: true }, { encrypted: false, remoteAddress: '::1' }, true],
    [
      'non-loopback with loopback allowed',
      { allowLoopback: true },
      { encrypted: false, remoteAddress: '192.168.1.1' },
      false,
    ],
    [
      'no address',
      { allowLoopback: true, trustProxy: true },
      { encrypted: false, remoteAddress: undefined, forwardedProto: 'https' },
      false,
    ],
  ])('%s', (_name, options, input, expected) => {
    expect(isSecureRequest(options)(input)).toBe(expected);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::ffff:127.0.0.1', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['::2', false],
    ['localhost', false],
  ])('isLoopback(%s) = %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});

describe.each(EXPRESS_VERSIONS)('requireHttps (%s)', (_name, express) => {
  const appWith = (options: RequireHttpsOptions) => {
    const app = express();
    app.use(requireHttps(options));
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    app.use(errorHandler({ onError: () => {} }));
    return app;
  };

  it.each<[string, RequireHttpsOptions, Record<string, string>, number]>([
    ['plain HTTP from loopback, loopback not allowed', { allowLoopback: false }, {}, 403],
    ['plain HTTP from loopback, loopback allowed', { allowLoopback: true }, {}, 200],
    [
      'X-Forwarded-Proto from the trusted loopback proxy',
      { allowLoopback: false, trustProxy: ['127.0.0.1'] },
      { 'X-Forwarded-Proto': 'https' },
      200,
    ],
    ['X-Forwarded-Proto without trust', { allowLoopback: false }, { 'X-Forwarded-Proto': 'https' }, 403],
  ])('%s → %i', async (_case, options, headers, status) => {
    const res = await request(appWith(options)).get('/').set(headers);
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body.error_code).toBe('https_required');
  });
});
