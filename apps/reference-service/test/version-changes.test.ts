/**
 * The service's declared version changes round-trip: a project body valid in an older version,
 * migrated up, validated by the newest version's schema (the handler's input), answered as
 * validated and migrated back down, comes back exactly as sent, across every change declared after
 * v1 (a new version's change is covered as soon as it is declared).
 */
import { roundTrip } from '@plumbline/versioning';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectInput } from '../src/domain/schemas.js';
import { API_VERSIONS, type ProjectEndpoint } from '../src/domain/versions.js';

// A v1 project body as its schema allows it: a trimmed name, the bare budget amount (or null).
const v1Project = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 100 }).filter((name) => name.trim() === name && name !== ''),
    description: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
    status: fc.constantFrom('active', 'archived'),
    budget: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e12 }), { nil: null }),
  },
  { requiredKeys: ['name'] },
);

const endpoints: readonly [string, fc.Arbitrary<ProjectEndpoint>][] = [
  [
    'POST /projects',
    fc.constant<ProjectEndpoint>({ method: 'POST', path: '/projects', schemas: ['Project'] }),
  ],
  [
    'PUT /projects/{projectId} (a stored currency)',
    fc.constantFrom('EUR', 'USD', 'GBP', 'CHF', 'JPY').map<ProjectEndpoint>((currency) => ({
      method: 'PUT',
      path: '/projects/{projectId}',
      schemas: ['Project'],
      currency,
    })),
  ],
];

describe('a valid v1 body round-trips through the newest version', () => {
  it.each(endpoints)('%s', (_name, endpoint) => {
    fc.assert(
      fc.property(v1Project, endpoint, (body, at) => {
        const result = roundTrip(API_VERSIONS, {
          version: '1',
          body,
          endpoint: at,
          // The handler's view: the newest version's schema must accept the migrated body.
          respond: (request: unknown) => projectInput.parse(request),
        });
        expect(result.differences).toEqual([]);
        expect(result.response).toEqual(body);
      }),
      { numRuns: 200, seed: 20261128 },
    );
  });
});
