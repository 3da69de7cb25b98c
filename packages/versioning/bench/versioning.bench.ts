import { bench, describe } from 'vitest';
import { createVersionPolicy, resolveVersion, type VersionRequest, versionHeaders } from '../src/index.js';

const versions = [
  {
    version: '1',
    deprecatedAt: '2026-01-01T00:00:00Z',
    sunsetAt: '2099-01-01T00:00:00Z',
    successor: '2',
    links: { deprecation: 'https://docs.example.com/deprecations/v1' },
  },
  '2',
  '2.1',
];
const CHROME =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

const cases: [string, ReturnType<typeof createVersionPolicy>, VersionRequest][] = [
  ['path /v1/projects/7', createVersionPolicy({ strategy: 'path', versions }), { path: '/v1/projects/7' }],
  [
    'query limit=20&version=2',
    createVersionPolicy({ strategy: 'query', versions }),
    { query: 'limit=20&version=2' },
  ],
  [
    'header X-API-Version: 2.1',
    createVersionPolicy({ strategy: 'header', versions }),
    { headers: { 'x-api-version': '2.1' } },
  ],
  [
    'header absent (default)',
    createVersionPolicy({ strategy: 'header', versions }),
    { headers: { accept: '*/*' } },
  ],
  [
    'media type vnd v1 + Chrome Accept',
    createVersionPolicy({ strategy: 'media-type', vendor: 'plumbline', versions }),
    { headers: { accept: `${CHROME},application/vnd.plumbline.v1+json` } },
  ],
];

for (const [label, policy, request] of cases) {
  describe(label, () => {
    bench('resolveVersion', () => {
      resolveVersion(policy, request);
    });
    bench('versionHeaders', () => {
      versionHeaders(policy, '1');
    });
    bench('versionHeaders with derived successor link', () => {
      versionHeaders(policy, '1', { path: '/v1/projects/7' });
    });
  });
}
