/**
 * What the three framework files share besides the routes: the version policy (v1 deprecated, v2
 * current), negotiation, credentials, the contract's options, and one OpenAPI document per version.
 */
import { generateApiKey, MemoryApiKeyStore } from '@plumbline/auth';
import { type OpenApiDocument, toOpenApi } from '@plumbline/contract';
import { createMemoryStore, type IdempotencyStore } from '@plumbline/idempotency';
import { createVersionPolicy, type VersionPolicy } from '@plumbline/versioning';
import { apiRoutes, Store, type Version } from './routes.ts';

export interface Settings {
  readonly policy: VersionPolicy;
  readonly negotiation: { readonly languages: readonly string[] };
  readonly auth: { readonly apiKeys: { readonly store: MemoryApiKeyStore } };
  readonly contract: { readonly idempotency: { readonly store: IdempotencyStore } };
  /** `v1.json`, `v2.json`: the OpenAPI document of each version. */
  readonly documents: Readonly<Record<string, OpenApiDocument>>;
  /** The demo API keys (read-only and read-write), printed at start. */
  readonly keys: { readonly read: string; readonly write: string };
}

const DEPRECATED = new Date('2026-06-01T00:00:00Z');
const SUNSET = new Date('2027-06-01T00:00:00Z');

export function settings(
  keys = {
    read: process.env['READ_KEY'] ?? generateApiKey(),
    write: process.env['WRITE_KEY'] ?? generateApiKey(),
  },
): Settings {
  const apiKeys = new MemoryApiKeyStore();
  apiKeys.add(keys.read, { clientId: 'reader', access: 'read' });
  apiKeys.add(keys.write, { clientId: 'writer', access: 'read-write' });
  const policy = createVersionPolicy({
    strategy: 'path',
    versions: [
      {
        version: '1',
        deprecatedAt: DEPRECATED.toISOString(),
        sunsetAt: SUNSET.toISOString(),
        successor: '2',
      },
      '2',
    ],
  });
  const document = (version: Version) =>
    toOpenApi(apiRoutes(version, new Store()), {
      info: { title: 'Projects API', version },
      pathPrefix: `/v${version}`,
      versions: { supported: ['1', '2'], deprecated: ['1'] },
      security: { apiKey: true },
      ...(version === '1'
        ? { deprecation: { deprecation: DEPRECATED, sunset: SUNSET, successor: '2' } }
        : {}),
    });
  return {
    policy,
    negotiation: { languages: ['en', 'de'] },
    auth: { apiKeys: { store: apiKeys } },
    contract: { idempotency: { store: createMemoryStore() } },
    documents: { 'v1.json': document('1'), 'v2.json': document('2') },
    keys,
  };
}
