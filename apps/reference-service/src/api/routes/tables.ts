/**
 * The versioned API as the list every wiring mounts in one loop, in order: the searches first
 * (`/projects/search` and `/tasks/search` also fit the member paths after them), then projects,
 * tasks and comments (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)).
 * Framework-free.
 */
import type { Route } from '@plumbline/contract';
import type { AppContext } from '../../service/context.js';
import { commentRoutes } from './comments.js';
import { colonPath } from './common.js';
import { PROJECT_MEMBER_PATH, projectRoutes } from './projects.js';
import { searchRoutes } from './searches.js';
import { TASK_MEMBER_PATHS, taskRoutes } from './tasks.js';

/** The `Accept-Patch` value on every answer of a member path (405 included): the patch formats it takes. */
export const ACCEPT_PATCH = 'application/merge-patch+json, application/json';

/** One route table and the member paths (`:name` form) whose every answer carries {@link ACCEPT_PATCH}. */
export interface RouteTable {
  readonly routes: readonly Route[];
  readonly members: readonly string[];
}

/**
 * The route tables of the versioned API, in mounting order; the handlers get the version a router
 * serves as the mount's `context` (api/routes/common.ts, `routeVersion`).
 *
 * @example
 * ```ts
 * for (const table of versionRouteTables(ctx)) mount(router, table.routes, options);
 * ```
 */
export function versionRouteTables(ctx: AppContext): readonly RouteTable[] {
  return [
    { routes: searchRoutes(ctx), members: [] },
    { routes: projectRoutes(ctx), members: [colonPath(PROJECT_MEMBER_PATH)] },
    // A task of another project is 404.
    { routes: taskRoutes(ctx), members: TASK_MEMBER_PATHS.map(colonPath) },
    { routes: commentRoutes(ctx), members: [] },
  ];
}
