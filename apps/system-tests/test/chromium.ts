/**
 * What the browser system tests share: Debian's headless Chromium (`/usr/bin/chromium`, never a
 * downloaded browser) launched through playwright-core with the same flags, a readiness check that
 * fails rather than skips under `CI=true`, and a context that lets no request leave loopback.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { SERVICE_MAIN } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
/** Where CI keeps its artifacts (screenshots). */
export const OUT = resolve(here, '../../../.ci/out');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the built service and Chromium are there. Under `CI=true` a missing one throws (naming
 * `what` needs it), so CI fails instead of skipping.
 */
export function browserReady(what: string): boolean {
  const missing = [SERVICE_MAIN, CHROMIUM].filter((file) => !existsSync(file));
  if (missing.length > 0 && process.env['CI'] === 'true') {
    throw new Error(`${what} needs: ${missing.join(', ')} (apt-get install -y chromium)`);
  }
  return missing.length === 0;
}

/** Headless Chromium and one 1280×900 context. */
export async function launchChromium(): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { browser, context };
}

/**
 * Lets the context's requests reach `hosts` (loopback addresses) and `data:`/`blob:` URLs only;
 * anything else is aborted and reported to `problem`.
 */
export async function keepToLoopback(
  context: BrowserContext,
  problem: (line: string) => void,
  hosts: readonly string[] = ['127.0.0.1'],
): Promise<void> {
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || hosts.includes(url.hostname)) {
      await route.continue();
      return;
    }
    problem(`request left loopback: ${route.request().url()}`);
    await route.abort();
  });
}
