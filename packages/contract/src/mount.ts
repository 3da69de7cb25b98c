/** What every adapter decides the same way when it mounts a compiled route. */
import type { CompiledRoute } from './compile.js';
import { RouteDefinitionError } from './compile.js';
import type { ContractOptions } from './run.js';

/** How one route is mounted: whether it takes idempotency keys (and must) and 428 without a precondition. */
export interface MountPlan {
  readonly idempotency: { readonly required: boolean } | undefined;
  readonly requirePrecondition: boolean;
}

/** The mount plan of a route; an idempotent route on a mount without an idempotency store is refused at start-up. */
export function mountPlan(
  compiled: CompiledRoute,
  options: ContractOptions & { readonly idempotency?: unknown },
): MountPlan {
  if (compiled.idempotency && options.idempotency === undefined) {
    throw new RouteDefinitionError([
      `${compiled.name}: is idempotent, but the mount has no \`idempotency\` store`,
    ]);
  }
  return {
    idempotency: compiled.idempotency,
    requirePrecondition: compiled.route.preconditions?.required ?? options.requirePreconditions ?? false,
  };
}

/** Each mounted path (`:name` syntax) with the methods declared on it, in declaration order. */
export function pathsOf(compiled: readonly CompiledRoute[]): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const c of compiled) {
    const methods = paths.get(c.colonPath) ?? [];
    methods.push(c.method);
    paths.set(c.colonPath, methods);
  }
  return paths;
}

/** `Last-Modified` as epoch milliseconds from a string, Date or number. */
export function lastModifiedOf(value: string | Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
