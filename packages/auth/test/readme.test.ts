// The README's Fastify and Hono examples run as written (only the port is made ephemeral).
import { readmeBlock, readmeFrameworkExamples, runReadmeExample, send } from '@plumbline/test-utils';
import { describe, expect, it } from 'vitest';

const here = new URL('.', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const examples = readmeFrameworkExamples(here, readme, 'auth');

const basic = `Basic ${Buffer.from('reporting:reporting-secret-0123456789').toString('base64')}`;

describe.each(examples)('README %s example', (_name, start) => {
  const port = start();

  it('issues a token that the protected route accepts', async () => {
    const token = await send(await port, {
      method: 'POST',
      path: '/oauth/token',
      headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=read%3Aprojects',
    });
    expect([token.status, token.headers['cache-control']]).toEqual([200, 'no-store']);
    const accessToken = (token.body as { access_token: string }).access_token;
    const projects = await send(await port, {
      path: '/projects',
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect([projects.status, projects.body]).toEqual([200, { client: 'reporting' }]);
  });

  it('answers no credentials with 401 and the Bearer challenge', async () => {
    const outcome = await send(await port, { path: '/projects' });
    expect([
      outcome.status,
      outcome.headers['www-authenticate'],
      (outcome.body as { error_code: string }).error_code,
    ]).toEqual([401, 'Bearer realm="plumbline"', 'unauthorized']);
  });
});

// The "Browser apps" example runs as written: login, a read, a forged cross-site POST, logout, a replay.
describe('README session cookie example', () => {
  it('answers login, read, forged POST, logout and replay as its comment shows', async () => {
    const { statuses } = await runReadmeExample<{ statuses: number[] }>(
      here,
      'auth-session-cookie',
      readmeBlock(readme, '### Session cookie example'),
      ['statuses'],
    );
    expect(statuses).toEqual([204, 200, 403, 204, 401]);
  });
});
