import { isHttpError } from '@plumbline/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createVersionPolicy, resolveVersion, type VersionStrategy } from './index.js';

const CODES = new Set([
  'not_found',
  'unsupported_api_version',
  'invalid_api_version',
  'ambiguous_api_version',
]);
const strategies: VersionStrategy[] = ['path', 'query', 'header', 'media-type'];

// Whatever a client sends, the answer is a supported version or one of the documented errors:
// never a TypeError, never an unsupported version slipping through.
describe.each(strategies)('resolveVersion with arbitrary input (%s)', (strategy) => {
  const policy = createVersionPolicy({ strategy, vendor: 'acme', versions: ['1', '2', '2.1'] });
  const fragment = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(
      'v1',
      'V2',
      'v2.1',
      '/',
      ',',
      ';q=0',
      ';q=0.5',
      '2.x',
      'application/vnd.acme.v',
      '+json',
      ' ',
      'version=',
      '&',
    ),
  );
  const text = fc.array(fragment, { maxLength: 6 }).map((parts) => parts.join(''));

  it('returns a supported version or a documented HttpError', () => {
    fc.assert(
      fc.property(text, text, fc.array(text, { maxLength: 3 }), (path, query, header) => {
        try {
          const resolved = resolveVersion(policy, {
            path: `/${path}`,
            query,
            headers: { accept: header.join(','), 'x-api-version': header },
          });
          expect(policy.versions).toContain(resolved.version);
        } catch (error) {
          expect(isHttpError(error) && CODES.has(error.code)).toBe(true);
        }
      }),
      { numRuns: 300, seed: 20260101 },
    );
  });
});
