import { describeAdapters, type Outcome } from '@plumbline/test-utils';
import { expect } from 'vitest';
import { echo, type RequestSpec, runners } from '../test/support.js';
import { versionedRouter, versioning } from './express.js';
import { createVersionPolicy, type VersionPolicyOptions } from './index.js';

interface Case {
  readonly name: string;
  readonly request: RequestSpec;
  readonly status: number;
  readonly version?: string;
  readonly requested?: string;
  readonly defaulted?: boolean;
  readonly code?: string;
}

const VERSIONS: VersionPolicyOptions['versions'] = [{ version: '1', deprecated: true }, '2', '2.1'];
const SUPPORTED = '1, 2, 2.1';

function ok(name: string, request: RequestSpec, version: string, requested?: string): Case {
  return { name, request, status: 200, version, requested: requested ?? version, defaulted: false };
}
function byDefault(name: string, request: RequestSpec): Case {
  return { name, request, status: 200, version: '2', defaulted: true };
}
function fails(name: string, request: RequestSpec, status: number, code: string): Case {
  return { name, request, status, code };
}

// Express adds Accept and Accept-Language to Vary on every error; the strategy adds its own header.
function expectedVary(strategyVary: string | undefined, status: number): string | undefined {
  const members = strategyVary === undefined ? [] : [strategyVary];
  if (status >= 400) members.push('Accept', 'Accept-Language');
  return members.length === 0 ? undefined : [...new Set(members)].join(', ');
}

function check(strategyVary: string | undefined) {
  return (outcome: Outcome, testCase: Case, adapter: string): void => {
    const body = outcome.body as Record<string, unknown>;
    expect(outcome.status).toBe(testCase.status);
    if (testCase.status === 200) {
      expect(body['version']).toBe(testCase.version);
      expect(body['defaulted']).toBe(testCase.defaulted);
      expect(body['requested']).toBe(testCase.requested);
    } else {
      expect(body['error_code']).toBe(testCase.code);
      expect(body['status']).toBe(testCase.status);
    }
    if (adapter === 'core' && testCase.status === 200) return;
    // Errors carry the version lists too, from the core and through Express.
    expect(outcome.headers['api-supported-versions']).toBe(SUPPORTED);
    expect(outcome.headers['api-deprecated-versions']).toBe('1');
    if (adapter === 'core') return;
    expect(outcome.headers['vary']).toBe(expectedVary(strategyVary, testCase.status));
    // Version 1 is deprecated without a date; nothing else may claim to be deprecated.
    expect(outcome.headers['deprecation']).toBe(testCase.version === '1' ? 'true' : undefined);
    expect(outcome.headers['sunset']).toBeUndefined();
  };
}

const CHROME =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

// ---------------------------------------------------------------------------------------------
const pathPolicy = createVersionPolicy({ strategy: 'path', versions: VERSIONS, defaultVersion: '2' });
const pathCases: Case[] = [
  ok('v1', { path: '/v1/projects' }, '1'),
  ok('v2', { path: '/v2/projects/7' }, '2'),
  ok('major.minor v2.1', { path: '/v2.1/projects' }, '2.1'),
  ok('v2.0 is v2', { path: '/v2.0/projects' }, '2', '2.0'),
  fails('upper-case V2 is another path', { path: '/V2/projects' }, 404, 'not_found'),
  ok('version segment alone', { path: '/v2' }, '2'),
  ok('version segment with trailing slash', { path: '/v1/' }, '1'),
  ok('query version is ignored', { path: '/v1/projects', query: 'version=2' }, '1'),
  ok('header version is ignored', { path: '/v1/projects', headers: { 'X-API-Version': '2' } }, '1'),
  fails('no version segment is 404', { path: '/projects' }, 404, 'not_found'),
  fails('a word starting with v is not a version', { path: '/videos' }, 404, 'not_found'),
  fails('root', { path: '/' }, 404, 'not_found'),
  fails('unknown v3 is 404', { path: '/v3/projects' }, 404, 'unsupported_api_version'),
  fails('unknown minor v2.2 is 404', { path: '/v2.2/projects' }, 404, 'unsupported_api_version'),
  fails('malformed v2.x', { path: '/v2.x/projects' }, 400, 'invalid_api_version'),
  fails('malformed v1beta', { path: '/v1beta/projects' }, 400, 'invalid_api_version'),
  fails('malformed v2.1.0', { path: '/v2.1.0/projects' }, 400, 'invalid_api_version'),
  fails('leading zero v02', { path: '/v02/projects' }, 400, 'invalid_api_version'),
  fails('empty version /v/', { path: '/v/projects' }, 400, 'invalid_api_version'),
];
describeAdapters(
  'path strategy',
  pathCases,
  runners<Case>(pathPolicy, (app) =>
    app.use(versionedRouter(pathPolicy, { '1': echo, '2': echo, '2.1': echo })),
  ),
  check(undefined),
);

const prefixPolicy = createVersionPolicy({
  strategy: 'path',
  prefix: '/api/',
  versions: VERSIONS,
  defaultVersion: '2',
});
describeAdapters(
  'path strategy with prefix /api',
  [
    ok('/api/v1', { path: '/api/v1/projects' }, '1'),
    fails('prefix and v are case-sensitive', { path: '/API/v2/projects' }, 404, 'not_found'),
    fails('upper-case V', { path: '/api/V2/projects' }, 404, 'not_found'),
    fails('no prefix', { path: '/v1/projects' }, 404, 'not_found'),
    fails('prefix without version', { path: '/api/projects' }, 404, 'not_found'),
    fails('prefix glued to the version', { path: '/apiv1/projects' }, 404, 'not_found'),
    fails('unknown', { path: '/api/v7/projects' }, 404, 'unsupported_api_version'),
    fails('malformed', { path: '/api/v1.x' }, 400, 'invalid_api_version'),
  ] satisfies Case[],
  runners<Case>(prefixPolicy, (app) =>
    app.use(versionedRouter(prefixPolicy, { '1': echo, '2': echo, '2.1': echo })),
  ),
  check(undefined),
);

// ---------------------------------------------------------------------------------------------
const queryPolicy = createVersionPolicy({ strategy: 'query', versions: VERSIONS, defaultVersion: '2' });
const queryCases: Case[] = [
  ok('version=1', { query: 'version=1' }, '1'),
  ok('version=2.1', { query: 'version=2.1' }, '2.1'),
  ok('with other parameters', { query: 'limit=10&version=1&sort=-name' }, '1'),
  ok('spaces around the value', { query: 'version=%202%20' }, '2'),
  ok('plus as space', { query: 'version=+1+' }, '1'),
  ok('same value twice', { query: 'version=2&version=2' }, '2'),
  ok('2 and 2.0 name one version', { query: 'version=2&version=2.0' }, '2'),
  byDefault('absent', {}),
  byDefault('other parameters only', { query: 'limit=10' }),
  byDefault('parameter name is case-sensitive', { query: 'Version=1' }),
  byDefault('header is ignored', { headers: { 'X-API-Version': '1' } }),
  fails('unknown 9', { query: 'version=9' }, 400, 'unsupported_api_version'),
  fails('unknown 1.1', { query: 'version=1.1' }, 400, 'unsupported_api_version'),
  fails('malformed v2', { query: 'version=v2' }, 400, 'invalid_api_version'),
  fails('malformed V2', { query: 'version=V2' }, 400, 'invalid_api_version'),
  fails('malformed 2.x', { query: 'version=2.x' }, 400, 'invalid_api_version'),
  fails('malformed list 1,2', { query: 'version=1,2' }, 400, 'invalid_api_version'),
  fails('empty', { query: 'version=' }, 400, 'invalid_api_version'),
  fails('blank', { query: 'version=%20' }, 400, 'invalid_api_version'),
  fails('bare parameter', { query: 'version' }, 400, 'invalid_api_version'),
  fails('ambiguous version=1&version=2', { query: 'version=1&version=2' }, 400, 'ambiguous_api_version'),
  fails('ambiguous with an unknown one', { query: 'version=2&version=9' }, 400, 'ambiguous_api_version'),
];
describeAdapters(
  'query strategy',
  queryCases,
  runners<Case>(queryPolicy, (app) => app.use(versioning(queryPolicy), echo)),
  check(undefined),
);

// ---------------------------------------------------------------------------------------------
const headerPolicy = createVersionPolicy({ strategy: 'header', versions: VERSIONS, defaultVersion: '2' });
const headerCases: Case[] = [
  ok('1', { headers: { 'X-API-Version': '1' } }, '1'),
  ok('major.minor 2.1', { headers: { 'X-API-Version': '2.1' } }, '2.1'),
  ok('1.0 is 1', { headers: { 'X-API-Version': '1.0' } }, '1', '1.0'),
  ok('lower-case header name', { headers: { 'x-api-version': '2' } }, '2'),
  ok('odd-case header name', { headers: { 'X-Api-VERSION': '2.1' } }, '2.1'),
  ok('whitespace around the value', { headers: { 'X-API-Version': ' 1\t' } }, '1'),
  ok('two lines with one value', { headers: { 'X-API-Version': ['2', '2'] } }, '2'),
  ok('empty list members are ignored', { headers: { 'X-API-Version': '1,' } }, '1'),
  byDefault('absent', {}),
  byDefault('query is ignored', { query: 'version=1' }),
  fails('unknown 3', { headers: { 'X-API-Version': '3' } }, 400, 'unsupported_api_version'),
  fails('unknown 2.5', { headers: { 'X-API-Version': '2.5' } }, 400, 'unsupported_api_version'),
  fails('malformed v2', { headers: { 'X-API-Version': 'v2' } }, 400, 'invalid_api_version'),
  fails('malformed 2.x', { headers: { 'X-API-Version': '2.x' } }, 400, 'invalid_api_version'),
  fails('malformed 2.1.0', { headers: { 'X-API-Version': '2.1.0' } }, 400, 'invalid_api_version'),
  fails('empty', { headers: { 'X-API-Version': '' } }, 400, 'invalid_api_version'),
  fails(
    'two header lines 1 and 2',
    { headers: { 'X-API-Version': ['1', '2'] } },
    400,
    'ambiguous_api_version',
  ),
  fails('one line listing 1, 2', { headers: { 'X-API-Version': '1, 2' } }, 400, 'ambiguous_api_version'),
];
describeAdapters(
  'header strategy',
  headerCases,
  runners<Case>(headerPolicy, (app) => app.use(versioning(headerPolicy), echo)),
  check('X-API-Version'),
);

// ---------------------------------------------------------------------------------------------
const mediaPolicy = createVersionPolicy({
  strategy: 'media-type',
  vendor: 'plumbline',
  versions: VERSIONS,
  defaultVersion: '2',
});
const accept = (value: string): RequestSpec => ({ headers: { Accept: value } });
const V = (n: string, params = ''): string => `application/vnd.plumbline.v${n}+json${params}`;
const mediaCases: Case[] = [
  ok('v1', accept(V('1')), '1'),
  ok('v2.1', accept(V('2.1')), '2.1'),
  ok('upper case', accept('APPLICATION/VND.PLUMBLINE.V1+JSON'), '1'),
  ok('whitespace and unrelated parameters', accept(`  ${V('1', ' ; charset=utf-8 ; v=3')}  `), '1'),
  ok('quoted comma in a parameter', accept(V('1', ';profile="a,b"')), '1'),
  ok("Chrome's Accept plus v1", accept(`${CHROME},${V('1')}`), '1'),
  ok('higher q wins (v2 over v1)', accept(`${V('1', ';q=0.5')}, ${V('2', ';q=0.9')}`), '2'),
  ok('higher q wins (v1 over v2)', accept(`${V('1', ';q=0.9')}, ${V('2', ';q=0.5')}`), '1'),
  ok('unknown v9 passed over for v1 at lower q', accept(`${V('9')}, ${V('1', ';q=0.1')}`), '1'),
  ok('q=0 on v2 leaves v1', accept(`${V('2', ';q=0')}, ${V('1', ';q=0.5')}`), '1'),
  byDefault("Chrome's default Accept", accept(CHROME)),
  byDefault('absent', {}),
  byDefault('application/json', accept('application/json')),
  byDefault('*/*', accept('*/*')),
  byDefault('vendor type without a version', accept('application/vnd.plumbline+json')),
  byDefault('another vendor', accept('application/vnd.other.v1+json')),
  byDefault('a suffix that is not configured', accept('application/vnd.plumbline.v1+xml')),
  byDefault('unreadable q drops the range', accept(V('1', ';q=high'))),
  byDefault('q=0 on v1 only', accept(`${V('1', ';q=0')}, application/json`)),
  byDefault('header strategy value is ignored', { headers: { 'X-API-Version': '1' } }),
  fails('unknown v9 is 406', accept(V('9')), 406, 'unsupported_api_version'),
  fails(
    'q=0 on the default v2 is 406',
    accept(`${V('2', ';q=0')}, application/json`),
    406,
    'unsupported_api_version',
  ),
  fails('malformed vx', accept(V('x')), 400, 'invalid_api_version'),
  fails('malformed v02', accept(V('02')), 400, 'invalid_api_version'),
  fails('empty version', accept('application/vnd.plumbline.v+json'), 400, 'invalid_api_version'),
  fails('two versions at the same q', accept(`${V('1')}, ${V('2')}`), 400, 'ambiguous_api_version'),
];
describeAdapters(
  'media-type strategy',
  mediaCases,
  runners<Case>(mediaPolicy, (app) => app.use(versioning(mediaPolicy), echo)),
  check('Accept'),
);
