/**
 * Regression: keep-alive clients that kept sending during SIGTERM once held their connections (and
 * the process) open until the grace timer killed it. The service must drain and exit 0.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Credentials, type Database, environmentReady, seedDatabase } from './harness.js';
import { sigtermUnderLoad } from './sigterm-scenario.js';

const ready = await environmentReady();

describe.skipIf(!ready)('SIGTERM under keep-alive load', () => {
  let db: Database;
  let seeded: Credentials;
  beforeAll(async () => {
    ({ db, credentials: seeded } = await seedDatabase('sigka'));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('drains keep-alive connections and exits 0 within the grace period', async () => {
    await sigtermUnderLoad(db, seeded, { keepAlive: true, label: 'keepalive' });
  });
});
