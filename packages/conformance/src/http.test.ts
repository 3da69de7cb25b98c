import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetExhausted, describeRequest, describeResponse, excerpt, ProbeClient } from './http.js';

let server: Server;
let base = '';
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers['x-api-key'] ?? '-'}`);
    if (req.url === '/hang') return; // never answers: the timeout must end it
    if (req.url === '/big') {
      res.end('x'.repeat(10_000));
      return;
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://example.com/' }).end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('vary', 'Accept');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('ProbeClient', () => {
  it('sends credentials unless anonymous, and records every exchange', async () => {
    seen.length = 0;
    const client = new ProbeClient(base, { 'X-API-Key': 'k1' }, { requestsPerSecond: 1000 });
    await client.send('GET', '/a');
    await client.send('GET', '/b', { anonymous: true });
    expect(seen).toEqual(['GET /a k1', 'GET /b -']);
    expect(client.exchanges.map((e) => e.response?.status)).toEqual([200, 200]);
    expect(client.count).toBe(2);
  });

  it.each([
    ['another host', 'http://example.com/x'],
    ['another port', 'http://127.0.0.1:1/x'],
    ['another scheme', 'https://127.0.0.1/x'],
  ])('refuses %s without sending anything', async (_label, target) => {
    seen.length = 0;
    const client = new ProbeClient(base, {}, { requestsPerSecond: 1000 });
    const exchange = await client.send('GET', target);
    expect(exchange.response).toBeUndefined();
    expect(exchange.error).toMatch(/^refused: /);
    expect(seen).toEqual([]);
    expect(client.count).toBe(0);
  });

  it('does not follow redirects', async () => {
    const client = new ProbeClient(base, {}, { requestsPerSecond: 1000 });
    const exchange = await client.send('GET', '/redirect');
    expect(exchange.response?.status).toBe(302);
  });

  it('stops at the request budget, but lets cleanup through', async () => {
    const client = new ProbeClient(base, {}, { maxRequests: 2, requestsPerSecond: 1000 });
    await client.send('GET', '/1');
    await client.send('GET', '/2');
    await expect(client.send('GET', '/3')).rejects.toBeInstanceOf(BudgetExhausted);
    expect((await client.send('DELETE', '/4', { overBudget: true })).response?.status).toBe(200);
  });

  it('ends a request that takes longer than the timeout', async () => {
    const client = new ProbeClient(base, {}, { timeoutMs: 100, requestsPerSecond: 1000 });
    const exchange = await client.send('GET', '/hang');
    expect(exchange.error).toBe('timed out after 100 ms');
  });

  it('reads at most maxBodyBytes of a body', async () => {
    const client = new ProbeClient(base, {}, { maxBodyBytes: 1024, requestsPerSecond: 1000 });
    const exchange = await client.send('GET', '/big');
    expect(exchange.response?.body).toHaveLength(1024);
    const larger = await client.send('GET', '/big', { maxBodyBytes: 4096 });
    expect(larger.response?.body).toHaveLength(4096);
    const whole = await client.send('GET', '/big', { maxBodyBytes: 1 << 20 });
    expect(whole.response?.body).toHaveLength(10_000);
  });

  it('delivers concurrent sends one slot after another under pacing', async () => {
    seen.length = 0;
    const client = new ProbeClient(base, {}, { requestsPerSecond: 20 });
    await Promise.all([client.send('GET', '/p1'), client.send('GET', '/p2'), client.send('GET', '/p3')]);
    expect(seen.map((line) => line.split(' ')[1]).sort()).toEqual(['/p1', '/p2', '/p3']);
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => new ProbeClient('ftp://127.0.0.1/', {})).toThrow(
      'base URL must be http(s): ftp://127.0.0.1/',
    );
  });
});

describe('evidence', () => {
  it('masks credentials in the request description', () => {
    const text = describeRequest({
      method: 'POST',
      url: new URL('http://h/v2/projects?x=1'),
      headers: { Authorization: 'Bearer abc.def', 'X-API-Key': 'plk_secret', Accept: 'application/json' },
      body: '{"name":"x"}',
    });
    expect(text).toBe(
      'POST /v2/projects?x=1\nAuthorization: Bearer ***\nX-API-Key: ***\nAccept: application/json\n\n{"name":"x"}',
    );
  });

  it('shows the status, the named headers (absent ones too) and the start of the body', () => {
    const text = describeResponse(
      {
        request: { method: 'GET', url: new URL('http://h/'), headers: {} },
        response: {
          status: 200,
          headers: new Headers({ 'content-type': 'application/json' }),
          body: '{\n"a": 1}',
        },
      },
      ['vary'],
    );
    expect(text).toBe('HTTP 200\ncontent-type: application/json\nvary: (absent)\n{ "a": 1}');
  });

  it('says why there is no response', () => {
    expect(
      describeResponse({
        request: { method: 'GET', url: new URL('http://h/'), headers: {} },
        error: 'timed out after 5 ms',
      }),
    ).toBe('no response: timed out after 5 ms');
  });

  it('cuts long text with an ellipsis', () => {
    expect(excerpt('abcdef', 4)).toBe('abc…');
  });
});
