/**
 * The front door in a real browser: Debian's headless Chromium driven by playwright-core (never a
 * downloaded browser). `/` and `/docs` load with no console error (a CSP violation is one) and no
 * request leaving loopback, every operation of the OpenAPI document is listed, "Try it out" with the
 * demo API key answers 200, and `/errors/not_found` renders. A screenshot of `/docs` is saved under
 * `.ci/out/` for the CI artifacts.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserReady, keepToLoopback, launchChromium, OUT } from './chromium.js';
import { type Credentials, type Instance, startInstance } from './harness.js';

/** Where CI keeps its artifacts. */
export const SCREENSHOT = resolve(OUT, 'reference-service-docs.png');

const ready = browserReady('The browser test');

describe.skipIf(!ready)('the front door in headless Chromium', () => {
  let service: Instance;
  let credentials: Credentials;
  let browser: Browser;
  let context: BrowserContext;
  /** Console errors, page errors and requests that left loopback, per test. */
  let problems: string[];

  beforeAll(async () => {
    const started = await startInstance({ DATABASE_FILE: ':memory:' }, { expectCredentials: true });
    service = started.instance;
    credentials = started.credentials!;
    ({ browser, context } = await launchChromium());
    // Anything not on loopback is recorded and never sent.
    await keepToLoopback(context, (line) => problems.push(line));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await service?.stop();
  });

  async function open(path: string): Promise<Page> {
    problems = [];
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
    );
    const response = await page.goto(`${service.url}${path}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    return page;
  }

  it('/ renders the API index', async () => {
    const page = await open('/');
    await expect.poll(() => page.locator('h1').textContent()).toContain('Plumbline reference service');
    expect(await page.locator('td.status').allTextContents()).toEqual(['deprecated', 'current', 'current']);
    expect(await page.locator('a[href="/docs"]').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('/docs lists every operation, and "Try it out" with the demo key answers 200', async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(document.paths)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .filter((id): id is string => typeof id === 'string')
      .sort();
    expect(operationIds.length).toBeGreaterThan(50);

    const page = await open('/docs');
    await page.waitForSelector('body[data-docs-ready="true"]', { timeout: 60_000 });
    await page.waitForSelector('.opblock', { timeout: 60_000 });
    const listed = (await page.locator('.opblock .opblock-summary-operation-id').allTextContents())
      .map((text) => text.trim())
      .sort();
    expect(listed).toEqual(operationIds);

    // The demo key is filled in: the Authorize button shows the locked state.
    await page.locator('.auth-wrapper .authorize.locked').waitFor({ timeout: 10_000 });

    const operation = page.locator('#operations-projects-v2_list_projects');
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    const curl = await operation.locator('.curl-command').first().textContent();
    const responseBody = await operation
      .locator('.live-responses-table .response-col_description')
      .first()
      .textContent();
    expect((await status.textContent())?.trim(), `${curl}\n${responseBody}`).toBe('200');
    const body = await operation
      .locator('.live-responses-table .response-col_description pre')
      .first()
      .textContent();
    expect(body).toContain('"data"');
    expect(body).toContain('Apollo');

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems).toEqual([]);
    // The key is the read-only one: it is what the page holds, and it cannot write.
    expect(await page.content()).not.toContain(credentials.apiKey);
    await page.close();
  });

  it.each([
    ['/docs?version=1', '1', 'v1'],
    ['/docs?version=2', '2', 'v2'],
  ])('%s: the version selector renders that version’s own document', async (path, version, selected) => {
    const document = (await (await fetch(`${service.url}/openapi.json?version=${version}`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(document.paths)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .filter((id): id is string => typeof id === 'string')
      .sort();
    const page = await open(path);
    await page.waitForSelector('body[data-docs-ready="true"]', { timeout: 60_000 });
    await page.waitForSelector('.opblock', { timeout: 60_000 });
    const listed = (await page.locator('.opblock .opblock-summary-operation-id').allTextContents())
      .map((text) => text.trim())
      .sort();
    expect(listed).toEqual(operationIds);
    expect(listed.some((id) => id.startsWith(`v${version === '1' ? '2' : '1'}_`))).toBe(false);
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe(selected);
    expect(await page.locator('.info .title').first().textContent()).toContain(`API version ${version}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('/changelog renders as a page, linked from / and /docs', async () => {
    const page = await open('/changelog');
    expect(await page.locator('h1').textContent()).toBe('API changelog');
    expect(await page.locator('section h2').allTextContents()).toEqual(['v3', 'v2', 'v1']);
    expect(problems).toEqual([]);
    await page.close();
    // `/`: in its header line and in its list of links; `/docs`: in its navigation.
    for (const [from, links] of [
      ['/', 2],
      ['/docs', 1],
    ] as const) {
      const linking = await open(from);
      expect(await linking.locator('a[href="/changelog"]').count()).toBe(links);
      await linking.close();
    }
  });

  it('/errors/not_found renders as a page', async () => {
    const page = await open('/errors/not_found');
    expect(await page.locator('h1').textContent()).toBe('not_found');
    expect(await page.locator('dd').allTextContents()).toEqual([
      '404 Not Found',
      'The requested resource does not exist.',
    ]);
    expect(await page.locator('a', { hasText: 'Why, and what to do' }).getAttribute('href')).toBe(
      'https://github.com/plumbline/plumbline/blob/main/docs/design.md#d-errors',
    );
    expect(problems).toEqual([]);
    await page.close();
  });
});
