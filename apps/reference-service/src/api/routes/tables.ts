/**
 * The versioned API as the lists every wiring mounts in one loop, in order: the searches first
 * (`/projects/search` and `/tasks/search` also fit the member paths after them), then projects,
 * tasks and comments (nesting stays at two levels: /tasks/{id}/comments, docs/conventions.md 4.1 (2)).
 * Each list is one `mount()`, so its paths' 405 answers come before the next list's routes. Every
 * answer on a path that takes a PATCH carries `Accept-Patch` (the mount's `acceptPatch`).
 * Framework-free.
 */
import type { Route } from '@plumbline/contract';
import type { AppContext } from '../../service/context.js';
import { commentRoutes } from './comments.js';
import { projectRoutes } from './projects.js';
import { searchRoutes } from './searches.js';
import { taskRoutes } from './tasks.js';

/**
 * The route tables of the versioned API, in mounting order; the handlers get the version a router
 * serves as the mount's `context` (api/routes/common.ts, `routeVersion`).
 *
 * @example
 * ```ts
 * for (const routes of versionRouteTables(ctx)) mount(router, routes, options);
 * ```
 */
export function versionRouteTables(ctx: AppContext): readonly (readonly Route[])[] {
  return [searchRoutes(ctx), projectRoutes(ctx), taskRoutes(ctx), commentRoutes(ctx)];
}
