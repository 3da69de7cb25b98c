/**
 * Demo data and demo credentials for a fresh database, so `pnpm start` serves something real and
 * the README's curl calls work. Credentials are random per database and printed once, on the start
 * that created them; only their hashes are stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey } from '@plumbline/auth';
import type { Repository } from '../storage/repository.js';

/** Scopes of the demo clients: `read:` / `write:` per collection (docs/conventions.md 5 (11): `<action>:<resource>`). */
export const COLLECTION_SCOPES = {
  read: ['read:projects', 'read:tasks', 'read:comments'],
  write: ['write:projects', 'write:tasks', 'write:comments'],
} as const;

export interface DemoCredentials {
  readonly apiKeys: { readonly readWrite: string; readonly readOnly: string };
  readonly clients: {
    readonly readWrite: { readonly clientId: string; readonly clientSecret: string };
    readonly readOnly: { readonly clientId: string; readonly clientSecret: string };
  };
}

const PROJECTS = [
  { name: 'Apollo', description: 'Moon landing programme', status: 'active', budget: [25_400_000, 'USD'] },
  {
    name: 'Borealis',
    description: 'Northern data centre migration',
    status: 'active',
    budget: [1_250_000, 'EUR'],
  },
  { name: 'Cassini', description: 'Saturn probe telemetry', status: 'archived', budget: [3_260_000, 'USD'] },
  { name: 'Delphi', description: 'Forecasting service rewrite', status: 'active', budget: null },
  { name: 'Everest', description: 'Expedition logistics', status: 'active', budget: [480_000, 'CHF'] },
] as const;

const TASK_TITLES = ['Write the plan', 'Review the budget', 'Hire the team', 'Ship the first milestone'];
const STATUSES = ['todo', 'in_progress', 'done'] as const;

export async function seedDemoData(repo: Repository): Promise<boolean> {
  if ((await repo.countProjects()) > 0) return false;
  for (const [p, project] of PROJECTS.entries()) {
    const row = await repo.createProject({
      name: project.name,
      description: project.description,
      status: project.status,
      budget_amount: project.budget ? project.budget[0] : null,
      budget_currency: project.budget ? project.budget[1] : null,
    });
    for (const [t, title] of TASK_TITLES.entries()) {
      const task = await repo.createTask(row.id, {
        title: `${title} (${project.name})`,
        status: STATUSES[(p + t) % STATUSES.length]!,
        priority: ((p + t) % 5) + 1,
        due_date: `2027-0${(t % 9) + 1}-1${p}`,
      });
      if (t === 0)
        await repo.createComment(task.id, `Kick-off notes for ${project.name}.`, 'demo-read-write');
    }
  }
  return true;
}

function secret(): string {
  return randomBytes(24).toString('base64url');
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Creates the demo API keys and OAuth clients (read-write and read-only); returns them in clear once. */
export async function createDemoCredentials(repo: Repository): Promise<DemoCredentials> {
  const readWriteKey = generateApiKey();
  const readOnlyKey = generateApiKey();
  await repo.insertApiKey(hashApiKey(readWriteKey), 'demo-read-write', 'read-write');
  await repo.insertApiKey(hashApiKey(readOnlyKey), 'demo-read-only', 'read');
  const readWriteSecret = secret();
  const readOnlySecret = secret();
  await repo.upsertClient(
    'demo-read-write',
    sha256(readWriteSecret),
    [...COLLECTION_SCOPES.read, ...COLLECTION_SCOPES.write, 'offline_access'],
    'Demo client (read-write)',
  );
  await repo.upsertClient(
    'demo-read-only',
    sha256(readOnlySecret),
    [...COLLECTION_SCOPES.read, 'offline_access'],
    'Demo client (read-only)',
  );
  return {
    apiKeys: { readWrite: readWriteKey, readOnly: readOnlyKey },
    clients: {
      readWrite: { clientId: 'demo-read-write', clientSecret: readWriteSecret },
      readOnly: { clientId: 'demo-read-only', clientSecret: readOnlySecret },
    },
  };
}

/**
 * The banner printed on the start that created the demo credentials; `projects` is the curl target
 * of the project list (URL and any version header) under the configured VERSIONING_STRATEGY.
 */
export function describeCredentials(
  baseUrl: string,
  credentials: DemoCredentials,
  projects = `${baseUrl}/v2/projects`,
): string {
  const { apiKeys, clients } = credentials;
  return [
    'Demo credentials (shown once; only their hashes are stored):',
    `  API key, read-write:  ${apiKeys.readWrite}`,
    `  API key, read-only:   ${apiKeys.readOnly}`,
    `  OAuth client, read-write:  ${clients.readWrite.clientId} / ${clients.readWrite.clientSecret}`,
    `  OAuth client, read-only:   ${clients.readOnly.clientId} / ${clients.readOnly.clientSecret}`,
    '',
    'Try:',
    `  export API_KEY=${apiKeys.readWrite}`,
    `  curl -i -H "X-API-Key: $API_KEY" ${projects}`,
    `  curl -s -u ${clients.readWrite.clientId}:${clients.readWrite.clientSecret} -d grant_type=client_credentials -d scope=read:projects ${baseUrl}/oauth/token`,
    '',
  ].join('\n');
}
