/**
 * The reference service's four VERSIONING_STRATEGY values, and how a client asks for a version
 * under each (the rulebook's shapes: `/v2/projects`, `/projects?version=2`, `X-API-Version: 2`,
 * `Accept: application/vnd.plumbline.v2+json`). Shared by the Prism and many-instances tests.
 */
export type Strategy = 'path' | 'query' | 'header' | 'media-type';

export const STRATEGIES: readonly Strategy[] = ['path', 'query', 'header', 'media-type'];

/**
 * A request for `path` (`/projects?limit=1`) in API `version` under a strategy, asking for `type`
 * (JSON or XML); with no version, the path is sent as it is.
 */
export function versioned(
  strategy: Strategy,
  version: string | undefined,
  path: string,
  type: 'json' | 'xml' = 'json',
): { path: string; accept: string; headers: Record<string, string> } {
  const plain = { path, accept: `application/${type}`, headers: {} };
  if (version === undefined) return plain;
  switch (strategy) {
    case 'path':
      return { ...plain, path: `/v${version}${path}` };
    case 'query':
      return { ...plain, path: `${path}${path.includes('?') ? '&' : '?'}version=${version}` };
    case 'header':
      return { ...plain, headers: { 'x-api-version': version } };
    case 'media-type':
      return { ...plain, accept: `application/vnd.plumbline.v${version}+${type}` };
  }
}

/**
 * `fetch` arguments for `path` in API v2 on the instance at `base` under a strategy: the URL, and
 * `init` with the strategy's version header or `Accept` added to its headers.
 */
export function v2(
  strategy: Strategy,
  base: string,
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
): [string, RequestInit] {
  const ask = versioned(strategy, '2', path);
  return [
    `${base}${ask.path}`,
    { ...init, headers: { accept: ask.accept, ...ask.headers, ...init.headers } },
  ];
}
