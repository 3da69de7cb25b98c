/**
 * `/ready`: whether this instance can serve requests that need its dependencies, and which one is
 * down. Each probe has its own deadline, so a stalled dependency makes `/ready` answer 503 in time
 * instead of hanging. `/health` (liveness) never calls any dependency.
 */
import { HttpError } from '@plumbline/errors';
import type { Cluster } from 'ioredis';
import type { AppContext } from './context.js';

type DependencyState = 'ok' | 'down';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, DependencyState>>;
}

function within(work: () => Promise<unknown>, ms: number): Promise<DependencyState> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('down'), ms);
    work().then(
      () => {
        clearTimeout(timer);
        resolve('ok');
      },
      () => {
        clearTimeout(timer);
        resolve('down');
      },
    );
  });
}

/**
 * Probes the database (`SELECT 1`) and, when configured, Redis (`PING`; on a Cluster, every master,
 * and one answering is enough), concurrently.
 */
export async function checkReadiness(ctx: AppContext): Promise<Readiness> {
  const { timeouts } = ctx.config;
  const redis = ctx.redis;
  const [database, shared] = await Promise.all([
    within(() => ctx.db.all('SELECT 1 AS ok'), timeouts.databaseConnectMs + timeouts.databaseStatementMs),
    redis
      ? redis.status === 'ready'
        ? within(
            () =>
              // A Cluster with a master down still serves the other masters' keys: ready while any answers.
              redis.isCluster
                ? Promise.any((redis as Cluster).nodes('master').map((node) => node.ping()))
                : redis.ping(),
            timeouts.redisCommandMs,
          )
        : Promise.resolve<DependencyState>('down')
      : undefined,
  ]);
  const checks: Record<string, DependencyState> = { database };
  if (shared !== undefined) checks['redis'] = shared;
  return { ready: Object.values(checks).every((state) => state === 'ok'), checks };
}

/** The 503 for an instance that is not ready: a problem document naming each dependency's state. */
export function notReady(readiness: Readiness): HttpError {
  return new HttpError('service_unavailable', {
    headers: { 'Retry-After': '1' },
    extensions: { checks: readiness.checks },
    // The dependency names and states are meant for the caller (a load balancer, an operator).
    expose: true,
  });
}
