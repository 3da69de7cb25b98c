import Negotiator from 'negotiator';
import { bench, describe } from 'vitest';
import { createNegotiator } from '../src/index.js';

const CHROME =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
// What createNegotiator() offers for the default types.
const OFFERS = ['application/json; charset=utf-8', 'application/xml; charset=utf-8'];
const ACCEPT_LANGUAGE = 'de-DE,de;q=0.9,en;q=0.8';

const cached = createNegotiator();
// cacheSize 0: every call parses the headers, as the first request with a new header does.
const uncached = createNegotiator({ cacheSize: 0 });

for (const [label, accept] of [
  ['application/json', 'application/json'],
  ["Chrome's Accept", CHROME],
] as const) {
  const media = { accept };
  const both = { accept, acceptLanguage: ACCEPT_LANGUAGE };
  cached.negotiate(both);
  describe(`negotiate: ${label}`, () => {
    bench('bare negotiator (media type only)', () => {
      new Negotiator({ headers: { accept } }).mediaType(OFFERS);
    });
    bench('plumbline, uncached (media type only)', () => {
      uncached.negotiate(media);
    });
    bench('plumbline, uncached (media type + language)', () => {
      uncached.negotiate(both);
    });
    bench('plumbline, cached (media type + language)', () => {
      cached.negotiate(both);
    });
  });
}
