/**
 * CORS for browser apps on other origins (`CORS_ORIGINS`): one policy, built once from the
 * configuration, the versioning strategy and the OpenAPI document's paths, so that a preflight
 * allows exactly the methods its path takes and the header strategy's version header may be sent.
 * Each wiring mounts `@plumbline/cors`'s adapter with it before anything can refuse a request
 * (HTTPS, the query length, the rate limits, authentication), so problem responses carry the CORS
 * headers too and a browser app can read them.
 */
import { type Cors, createCors } from '@plumbline/cors';
import { corsOrigins } from './config.js';
import type { AppContext } from './context.js';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The methods the path takes, from an OpenAPI document's `paths` (HEAD wherever GET is), or
 * `undefined` for a path the document does not have. A path matches a template segment by segment;
 * a template with fewer parameters wins (`/v2/projects/search` before `/v2/projects/{id}`).
 *
 * @example
 * ```ts
 * methodsOfPaths({ '/v2/projects/{id}': { get: {}, patch: {} } })('/v2/projects/7'); // ['GET', 'PATCH', 'HEAD']
 * ```
 */
export function methodsOfPaths(
  paths: Readonly<Record<string, unknown>>,
): (path: string) => readonly string[] | undefined {
  const table = Object.entries(paths)
    .map(([template, item]) => {
      const methods = Object.keys(item as object)
        .filter((name) => METHODS.has(name))
        .map((name) => name.toUpperCase());
      if (methods.includes('GET')) methods.push('HEAD');
      const parts = template.split(/\{[^}/]+\}/);
      return {
        pattern: new RegExp(`^${parts.map(escapeRegExp).join('[^/]+')}$`),
        methods,
        parameters: parts.length - 1,
      };
    })
    .sort((a, b) => a.parameters - b.parameters);
  return (path) => table.find((entry) => entry.pattern.test(path))?.methods;
}

/**
 * The service's CORS policy, or `undefined` when `CORS_ORIGINS` is unset (no CORS headers at all):
 * the configured origins, the header strategy's version header (`X-API-Version`) allowed and
 * exposed, and each path's methods from the OpenAPI document the service serves.
 *
 * @example
 * ```ts
 * const cors = serviceCors(ctx, documentForStrategy(ctx.api, buildOpenApi(ctx)));
 * ```
 */
export function serviceCors(
  ctx: Pick<AppContext, 'config' | 'api'>,
  document: Readonly<Record<string, unknown>>,
): Cors | undefined {
  const origins = ctx.config.corsOrigins;
  if (origins === undefined) return undefined;
  const versionHeader = ctx.api.strategy === 'header' ? ctx.api.policy.vary : undefined;
  return createCors({
    origins: corsOrigins(origins),
    ...(versionHeader === undefined ? {} : { versionHeader }),
    allowedMethods: methodsOfPaths(document['paths'] as Readonly<Record<string, unknown>>),
  });
}
