import { describe, expect, it } from 'vitest';
import { frameworkPeerProblems, type ManifestDependencies } from './portability.js';

const optional = { optional: true };
const good: ManifestDependencies = {
  dependencies: { 'fastify-plugin': '^5.1.0', negotiator: '^1.0.0' },
  peerDependencies: { express: '^5', fastify: '^5', hono: '^4' },
  peerDependenciesMeta: { express: optional, fastify: optional, hono: optional },
};

describe('frameworkPeerProblems', () => {
  it.each<[string, ManifestDependencies, string[]]>([
    ['every framework an optional peer, fastify-plugin a dependency', good, []],
    [
      'a framework as a dependency',
      { ...good, dependencies: { ...good.dependencies, hono: '^4' } },
      ['hono is a dependency'],
    ],
    [
      'a framework peer not marked optional',
      { ...good, peerDependenciesMeta: { express: optional, fastify: {}, hono: optional } },
      ['fastify is not marked optional'],
    ],
    [
      'a framework missing from the peers',
      { ...good, peerDependencies: { express: '^5', fastify: '^5' } },
      ['hono is not a peer'],
    ],
    [
      'a framework-named helper as a dependency',
      { ...good, dependencies: { '@fastify/cors': '^10' } },
      ['@fastify/cors is a dependency'],
    ],
  ])('%s', (_name, manifest, problems) => {
    expect(frameworkPeerProblems(manifest)).toEqual(problems);
  });
});
