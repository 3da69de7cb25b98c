import { coreOutcome, describeAdapters, frameworkRunners } from '@plumbline/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { negotiationApps } from '../test/apps.js';
import { createNegotiator, type Negotiation, type NegotiatorOptions } from './index.js';
import { dropInvalidRanges } from './media-type.js';
import { negotiatorOf } from './negotiator.js';

const JSON_TYPE = 'application/json';
const XML = 'application/xml';
const VND2 = 'application/vnd.plumbline.v2+json';
const CHROME =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function sixteenKiB(head: string, tail: string): string {
  const filler = 'text/plain;q=0.1, ';
  return head + filler.repeat(Math.ceil((16 * 1024) / filler.length)) + tail;
}
// Byte 1024 falls right after `application/xml`, inside `;q=0.1`: the cut range must be dropped,
// or a weak preference would become q=1.
const CUT_INSIDE_RANGE =
  `${'*/*;q=0.5, '}${'text/plain, '.repeat(83)}`.padEnd(1009, ' ') + 'application/xml;q=0.1';

interface AcceptCase {
  readonly name: string;
  /** `undefined`: no Accept header at all. */
  readonly accept: string | undefined;
  readonly vendor?: boolean;
  readonly expected: string | 406;
  readonly problemXml?: boolean;
}

const ACCEPT_CASES: readonly AcceptCase[] = [
  { name: 'absent means */*', accept: undefined, expected: JSON_TYPE },
  { name: '*/*', accept: '*/*', expected: JSON_TYPE },
  { name: 'application/*', accept: 'application/*', expected: JSON_TYPE },
  { name: 'empty string matches nothing', accept: '', expected: 406 },
  { name: 'text/html', accept: 'text/html', expected: 406 },
  { name: 'garbage', accept: 'garbage', expected: 406 },
  { name: 'only commas', accept: ',,,', expected: 406 },
  { name: 'application/json;q=0', accept: 'application/json;q=0', expected: 406 },
  { name: '*/*;q=0', accept: '*/*;q=0', expected: 406 },
  { name: 'json excluded, */* takes xml', accept: 'application/json;q=0, */*', expected: XML },
  { name: 'higher q wins', accept: 'application/xml;q=0.9, application/json;q=0.8', expected: XML },
  { name: 'tie: client order xml first', accept: 'application/xml, application/json', expected: XML },
  { name: 'tie: client order json first', accept: 'application/json, application/xml', expected: JSON_TYPE },
  { name: 'equal q tie xml first', accept: 'application/xml;q=0.5, application/json;q=0.5', expected: XML },
  {
    name: 'equal q tie json first',
    accept: 'application/json;q=0.5, application/xml;q=0.5',
    expected: JSON_TYPE,
  },
  { name: 'wildcard tie goes to our order', accept: 'text/*, application/*', expected: JSON_TYPE },
  { name: 'upper case', accept: 'APPLICATION/JSON', expected: JSON_TYPE },
  { name: 'mixed-case xml', accept: 'Application/Xml', expected: XML },
  { name: 'charset=utf-8 matches', accept: 'application/json; charset=utf-8', expected: JSON_TYPE },
  { name: 'charset=UTF-8 matches', accept: 'application/json; charset="UTF-8"', expected: JSON_TYPE },
  { name: 'charset=iso-8859-1 does not', accept: 'application/json; charset=iso-8859-1', expected: 406 },
  { name: 'q=abc ignores the range', accept: 'application/json;q=abc', expected: 406 },
  {
    name: 'q=abc range ignored, next used',
    accept: 'application/json;q=abc, application/xml;q=0.1',
    expected: XML,
  },
  { name: 'q=2 is not a weight', accept: 'application/json;q=2, application/xml;q=0.5', expected: XML },
  {
    name: 'q=0.5x is not a weight',
    accept: 'application/xml;q=0.5x, application/json;q=0.1',
    expected: JSON_TYPE,
  },
  // RFC 9110 12.5.1: `*/json` is not a media range. Invalid ranges are ignored, like invalid weights.
  { name: '*/json is not a media range', accept: '*/json', expected: 406 },
  { name: '*/json ignored, the next range used', accept: '*/json, application/xml;q=0.1', expected: XML },
  { name: '*/xml ignored even at q=1', accept: '*/xml, application/json;q=0.5', expected: JSON_TYPE },
  { name: 'a type without a subtype', accept: 'application/', expected: 406 },
  { name: 'a subtype without a type', accept: '/json, application/xml', expected: XML },
  { name: 'a bare subtype', accept: 'json, xml', expected: 406 },
  { name: 'a space inside the range', accept: 'application/ json', expected: 406 },
  { name: 'q=0.001 still acceptable', accept: 'application/json;q=0.001', expected: JSON_TYPE },
  { name: 'q=1.000', accept: 'application/xml;q=1.000', expected: XML },
  {
    name: 'specific beats wildcard',
    accept: 'application/*;q=0.5, application/xml;q=0.4',
    expected: JSON_TYPE,
  },
  { name: 'specific q=0 beats wildcard', accept: 'application/xml;q=0, application/*', expected: JSON_TYPE },
  { name: 'only */* in a browser list', accept: 'text/html, */*;q=0.1', expected: JSON_TYPE },
  { name: "Chrome's default (xml q=0.9 over */* q=0.8)", accept: CHROME, expected: XML },
  { name: "Firefox's default", accept: FIREFOX, expected: XML },
  { name: 'curl', accept: '*/*', expected: JSON_TYPE },
  { name: 'whitespace around', accept: '  application/xml  ', expected: XML },
  { name: 'garbage next to json', accept: 'garbage, application/json', expected: JSON_TYPE },
  // The error handler answers a 406 in the problem format the client prefers: XML here.
  { name: 'text/xml is not offered', accept: 'text/xml', expected: 406, problemXml: true },
  {
    name: '16 KiB: xml in the first KiB',
    accept: sixteenKiB('application/xml, ', 'application/json'),
    expected: XML,
  },
  { name: '16 KiB: json only after 1 KiB', accept: sixteenKiB('', 'application/json'), expected: 406 },
  { name: 'a range cut at 1 KiB is dropped', accept: CUT_INSIDE_RANGE, expected: JSON_TYPE },
  { name: 'vendor type when enabled', accept: VND2, vendor: true, expected: VND2 },
  { name: 'vendor type when not enabled', accept: VND2, expected: 406 },
  {
    name: 'vendor type upper case',
    accept: 'application/VND.PLUMBLINE.V2+JSON',
    vendor: true,
    expected: VND2,
  },
  {
    name: 'vendor q lower than json',
    accept: `${VND2};q=0.5, application/json`,
    vendor: true,
    expected: JSON_TYPE,
  },
  { name: 'vendor first among equals', accept: `${VND2}, application/json`, vendor: true, expected: VND2 },
  { name: 'other vendor', accept: 'application/vnd.other.v2+json', vendor: true, expected: 406 },
  {
    name: 'vendor with leading zero',
    accept: 'application/vnd.plumbline.v02+json',
    vendor: true,
    expected: 406,
  },
  { name: '*/* with vendor enabled', accept: '*/*', vendor: true, expected: JSON_TYPE },
];

const plainOptions: NegotiatorOptions = {};
const vendorOptions: NegotiatorOptions = { vendor: 'plumbline' };
const plain = createNegotiator(plainOptions);
const withVendor = createNegotiator(vendorOptions);
const AVAILABLE = ['application/json', 'application/xml'];

const acceptRunners = frameworkRunners(negotiationApps, (c: AcceptCase) => ({
  path: c.vendor ? '/vendor' : '/plain',
  headers: c.accept === undefined ? {} : { Accept: c.accept },
}));

describeAdapters(
  'Accept negotiation',
  ACCEPT_CASES,
  {
    core: (c) =>
      coreOutcome(() => {
        const result = (c.vendor ? withVendor : plain).negotiate({ accept: c.accept });
        if (!result.ok) throw result.error;
        return result;
      }),
    ...acceptRunners,
  },
  (outcome, c, adapter) => {
    if (c.expected === 406 && c.problemXml && adapter !== 'core') {
      expect(outcome.status).toBe(406);
      expect(outcome.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
      expect(outcome.body).toContain('<error_code>not_acceptable</error_code>');
      expect(outcome.body).toContain('<available><i>application/json</i><i>application/xml</i></available>');
      return;
    }
    if (c.expected === 406) {
      expect(outcome.status).toBe(406);
      expect(outcome.body).toMatchObject({
        status: 406,
        error_code: 'not_acceptable',
        available: AVAILABLE,
        detail:
          'None of the requested media types can be served; available: application/json, application/xml.',
      });
      if (adapter !== 'core') {
        expect(outcome.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
      }
      return;
    }
    expect(outcome.status).toBe(200);
    const contentType = `${c.expected}; charset=utf-8`;
    if (adapter === 'core') {
      expect(outcome.body).toEqual({
        ok: true,
        mediaType: c.expected,
        contentType,
        language: 'en',
        ...(c.expected === VND2 ? { vendor: { name: 'plumbline', version: 2 } } : {}),
      });
      return;
    }
    expect(outcome.headers['content-type']).toBe(contentType);
    expect(outcome.headers['vary']).toBe('Accept, Accept-Language');
    expect(outcome.headers['content-language']).toBe('en');
    expect(outcome.body).toEqual(
      c.expected === XML ? '<?xml version="1.0" encoding="UTF-8"?><data><ok>true</ok></data>' : { ok: true },
    );
  },
);

interface LanguageCase {
  readonly name: string;
  readonly acceptLanguage: string | undefined;
  readonly expected: string;
}

const LANGUAGE_CASES: readonly LanguageCase[] = [
  { name: 'absent', acceptLanguage: undefined, expected: 'en' },
  { name: 'empty', acceptLanguage: '', expected: 'en' },
  { name: '*', acceptLanguage: '*', expected: 'en' },
  { name: 'de-DE falls back to de', acceptLanguage: 'de-DE', expected: 'de' },
  { name: 'DE upper case', acceptLanguage: 'DE', expected: 'de' },
  { name: 'de;q=0, en', acceptLanguage: 'de;q=0, en', expected: 'en' },
  { name: 'de;q=0 and * gives the default', acceptLanguage: 'de;q=0, *', expected: 'en' },
  { name: 'es (not offered)', acceptLanguage: 'es', expected: 'en' },
  { name: 'es then de', acceptLanguage: 'es, de;q=0.5', expected: 'de' },
  { name: 'zh-Hant-TW → zh-Hant', acceptLanguage: 'zh-Hant-TW', expected: 'zh-Hant' },
  { name: 'zh-Hans (not offered)', acceptLanguage: 'zh-Hans-CN', expected: 'en' },
  { name: 'q order', acceptLanguage: 'en;q=0.1, de;q=0.9', expected: 'de' },
  { name: 'malformed tag', acceptLanguage: '!!!, 12345', expected: 'en' },
  { name: 'malformed q', acceptLanguage: 'de;q=abc', expected: 'en' },
  { name: 'over 1 KiB: de after the cut', acceptLanguage: `${'xx, '.repeat(300)}de`, expected: 'en' },
];

const languageOptions: NegotiatorOptions = { languages: ['en', 'de', 'zh-Hant'], defaultLanguage: 'en' };
const languages = createNegotiator(languageOptions);
const languageRunners = frameworkRunners(negotiationApps, (c: LanguageCase) => ({
  path: '/lang',
  headers: c.acceptLanguage === undefined ? {} : { 'Accept-Language': c.acceptLanguage },
}));

describeAdapters(
  'Accept-Language negotiation (never 406)',
  LANGUAGE_CASES,
  {
    core: (c) =>
      coreOutcome(() => {
        const result = languages.negotiate({ acceptLanguage: c.acceptLanguage });
        if (!result.ok) throw result.error;
        return result;
      }),
    ...languageRunners,
  },
  (outcome, c, adapter) => {
    expect(outcome.status).toBe(200);
    if (adapter === 'core') expect((outcome.body as { language: string }).language).toBe(c.expected);
    else expect(outcome.headers['content-language']).toBe(c.expected);
  },
);

describe('negotiate() core details', () => {
  it('the cut-inside-range fixture really cuts inside the range', () => {
    expect(CUT_INSIDE_RANGE[1024]).toBe(';');
    expect(CUT_INSIDE_RANGE.slice(1009, 1024)).toBe('application/xml');
  });

  it('returns the same frozen object for the same decision (cached)', () => {
    const first = plain.negotiate({ accept: CHROME, acceptLanguage: 'de' });
    const second = plain.negotiate({ accept: CHROME, acceptLanguage: 'de' });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('gives the same answers with the cache disabled', () => {
    const uncached = createNegotiator({ cacheSize: 0, vendor: 'plumbline' });
    for (const c of ACCEPT_CASES.filter((x) => x.vendor)) {
      const result = uncached.negotiate({ accept: c.accept });
      expect(result.ok ? result.mediaType : 406).toBe(c.expected);
    }
  });

  // The last Accept / Accept-Language pair is remembered: every pair below is asked right after
  // another that shares one of its headers, so a memo keyed on one header only would answer wrong.
  it.each([
    [
      'same Accept, other language',
      { accept: XML, acceptLanguage: 'de' },
      { accept: XML, acceptLanguage: 'en' },
      [XML, 'en'],
    ],
    [
      'same language, other Accept',
      { accept: XML, acceptLanguage: 'de' },
      { accept: JSON_TYPE, acceptLanguage: 'de' },
      [JSON_TYPE, 'de'],
    ],
    ['Accept dropped', { accept: XML, acceptLanguage: 'de' }, { acceptLanguage: 'de' }, [JSON_TYPE, 'de']],
    ['Accept-Language dropped', { accept: XML, acceptLanguage: 'de' }, { accept: XML }, [XML, 'en']],
    ['empty Accept-Language after none', { accept: XML }, { accept: XML, acceptLanguage: '' }, [XML, 'en']],
    [
      'empty Accept after none (406)',
      { acceptLanguage: 'de' },
      { accept: '', acceptLanguage: 'de' },
      [406, 'de'],
    ],
    [
      'acceptable, then not',
      { accept: XML, acceptLanguage: 'de' },
      { accept: 'text/html', acceptLanguage: 'de' },
      [406, 'de'],
    ],
    [
      'not acceptable, then acceptable',
      { accept: 'text/html', acceptLanguage: 'de' },
      { accept: XML, acceptLanguage: 'de' },
      [XML, 'de'],
    ],
  ] as const)('remembers the last header pair, keyed on both: %s', (_label, before, after, expected) => {
    for (const cacheSize of [500, 1, 0]) {
      const n = createNegotiator({ cacheSize });
      n.negotiate(before);
      const result = n.negotiate(after);
      expect([result.ok ? result.mediaType : 406, result.language]).toEqual(expected);
      expect(n.negotiate(after)).toEqual(result.ok ? result : { ...result, error: expect.anything() });
    }
  });

  it('answers a repeated pair with the same object, and never a 406 from the memo', () => {
    const n = createNegotiator();
    const first = n.negotiate({ accept: XML, acceptLanguage: 'de' });
    expect(n.negotiate({ accept: XML, acceptLanguage: 'de' })).toBe(first);
    const refused = n.negotiate({ accept: 'text/html' });
    expect(n.negotiate({ accept: 'text/html' })).not.toBe(refused);
  });

  it('knows which negotiator made each decision (negotiatorOf), and nothing else', () => {
    const a = createNegotiator();
    const b = createNegotiator({ types: [XML, JSON_TYPE], cacheSize: 0 });
    const fromA = a.negotiate({ accept: XML, acceptLanguage: 'de' });
    const fromB = b.negotiate({ accept: XML, acceptLanguage: 'de' });
    expect(fromA).toEqual(fromB);
    expect(fromA).not.toBe(fromB);
    expect(fromA.ok && negotiatorOf(fromA)).toBe(a);
    expect(fromB.ok && negotiatorOf(fromB)).toBe(b);
    expect(negotiatorOf({ ...(fromA as Negotiation) })).toBeUndefined();
    expect(negotiatorOf(undefined)).toBeUndefined();
    expect(negotiatorOf(null)).toBeUndefined();
  });

  it('a 406 carries a fresh error and the negotiated language', () => {
    const a = plain.negotiate({ accept: 'text/html', acceptLanguage: 'de' });
    const b = plain.negotiate({ accept: 'text/html', acceptLanguage: 'de' });
    expect(a.ok).toBe(false);
    if (a.ok || b.ok) return;
    expect(a.error).not.toBe(b.error);
    expect(a.language).toBe('de');
    expect(a.error.status).toBe(406);
    expect(a.error.extensions).toEqual({ available: AVAILABLE });
  });

  it.each([
    [{ versions: [1, 2] }, 'application/vnd.plumbline.v2+json', 2],
    [{ versions: [1, 2] }, 'application/vnd.plumbline.v1+json', 1],
    [{ versions: [1, 2] }, 'application/vnd.plumbline.v3+json', 406],
    [{}, 'application/vnd.plumbline.v3+json', 3],
    [{}, 'application/vnd.plumbline.v0+json', 0],
  ] as const)('vendor %j with %s → %s', (versions, accept, expected) => {
    const n = createNegotiator({ vendor: { name: 'plumbline', ...versions } });
    const result = n.negotiate({ accept });
    expect(result.ok ? result.vendor?.version : 406).toBe(expected);
  });

  it('lists fixed vendor versions as available', () => {
    const n = createNegotiator({ vendor: { name: 'plumbline', versions: [1, 2] } });
    expect(n.available).toEqual([
      'application/json',
      'application/xml',
      'application/vnd.plumbline.v1+json',
      'application/vnd.plumbline.v2+json',
    ]);
  });

  it('honours its own type order', () => {
    const xmlFirst = createNegotiator({ types: ['application/xml', 'application/json'] });
    expect(xmlFirst.negotiate({ accept: '*/*' })).toMatchObject({ mediaType: XML });
    expect(xmlFirst.negotiate({})).toMatchObject({ mediaType: XML });
  });

  it('never throws and always answers an offered type or 406, whatever the headers', () => {
    const n = createNegotiator({ vendor: 'plumbline', cacheSize: 8 });
    const offered = new Set(AVAILABLE);
    fc.assert(
      fc.property(
        fc.option(fc.string({ unit: 'binary', maxLength: 2000 }), { nil: undefined }),
        fc.option(fc.string({ unit: 'binary', maxLength: 200 }), { nil: undefined }),
        (accept, acceptLanguage) => {
          const result = n.negotiate({ accept, acceptLanguage });
          if (result.ok) {
            expect(offered.has(result.mediaType) || result.vendor !== undefined).toBe(true);
          } else expect(result.error.status).toBe(406);
          expect(['en', 'de']).toContain(result.language);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on media-type-shaped noise', () => {
    const token = fc.constantFrom('application', 'json', 'xml', '*', 'vnd.plumbline.v2+json', 'q', '');
    const piece = fc
      .tuple(token, fc.constantFrom('/', ';', '=', ',', ' ', '"'), token)
      .map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const result = withVendor.negotiate({ accept: pieces.join('') });
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('ignores non-string header values rather than throwing', () => {
    const result = plain.negotiate({ accept: ['application/xml'] as unknown as string });
    expect(result).toMatchObject({ ok: true, mediaType: JSON_TYPE });
  });
});

describe('createNegotiator() configuration errors', () => {
  it.each([
    ['empty types', { types: [] }, /types must not be empty/],
    ['wildcard type', { types: ['application/*'] }, /Invalid response media type/],
    ['not a type', { types: ['json'] }, /Invalid response media type/],
    ['duplicate type', { types: ['application/json', 'Application/JSON'] }, /listed twice/],
    ['type without serializer', { types: ['text/csv'] }, /No serializer for "text\/csv"/],
    ['empty languages', { languages: [] }, /languages must not be empty/],
    ['bad language tag', { languages: ['en', 'e n'] }, /Invalid language tag/],
    ['duplicate language', { languages: ['en', 'EN'] }, /listed twice/],
    ['default not offered', { languages: ['en'], defaultLanguage: 'fr' }, /not one of languages/],
    ['bad vendor name', { vendor: 'acme corp' }, /vendor.name/],
    ['bad vendor version', { vendor: { name: 'acme', versions: [1.5] } }, /vendor.versions/],
    ['negative cache size', { cacheSize: -1 }, /cacheSize/],
  ] as const)('%s', (_name, options, message) => {
    expect(() => createNegotiator(options as NegotiatorOptions)).toThrow(message);
  });

  it('takes the default language from the first language', () => {
    expect(createNegotiator({ languages: ['fr', 'en'] }).defaultLanguage).toBe('fr');
  });
});

describe('dropInvalidRanges (RFC 9110 12.5.1 media ranges)', () => {
  const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
  const validRange = fc.oneof(
    fc.constant('*/*'),
    token.filter((t) => t !== '*').map((t) => `${t}/*`),
    fc
      .tuple(
        token.filter((t) => t !== '*'),
        token,
      )
      .map(([t, s]) => `${t}/${s}`),
  );
  const params = fc.constantFrom('', ';q=0.5', '; charset=utf-8', ';q=1;level=1');
  // The grammar, read independently of the implementation's regular expression.
  const TCHAR = "!#$%&'*+.^_`|~";
  const isToken = (t: string) =>
    t.length > 0 && [...t].every((c) => /[0-9A-Za-z-]/.test(c) || TCHAR.includes(c));
  const isValid = (range: string) => {
    const essence = range.split(';')[0]!.replace(/^[ \t]+|[ \t]+$/g, '');
    const slash = essence.indexOf('/');
    if (slash < 0) return false;
    const [type, subtype] = [essence.slice(0, slash), essence.slice(slash + 1)];
    return isToken(type) && isToken(subtype) && (type !== '*' || subtype === '*');
  };

  it('keeps a header made only of valid ranges as it is', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(validRange, params), { minLength: 1, maxLength: 8 }), (ranges) => {
        const header = ranges.map(([r, p]) => `${r}${p}`).join(', ');
        expect(dropInvalidRanges(header)).toBe(header);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps exactly the valid ranges of any header, in order, and is idempotent', () => {
    const element = fc.oneof(
      fc.tuple(validRange, params).map(([r, p]) => `${r}${p}`),
      fc.tuple(token, params).map(([t, p]) => `*/${t === '*' ? 'x' : t}${p}`),
      fc.string({ maxLength: 20 }).filter((s) => !s.includes(',')),
    );
    fc.assert(
      fc.property(fc.array(element, { maxLength: 10 }), (elements) => {
        const header = elements.join(',');
        const kept = dropInvalidRanges(header);
        const expected = header
          .split(',')
          .filter((e) => e.trim() === '' || isValid(e))
          .join(',');
        expect(kept).toBe(expected);
        expect(dropInvalidRanges(kept)).toBe(kept);
        for (const e of kept.split(',')) expect(e.trim() === '' || isValid(e)).toBe(true);
        expect(kept.split(',').some((e) => e.trim().startsWith('*/') && !e.trim().startsWith('*/*'))).toBe(
          false,
        );
      }),
      { numRuns: 500 },
    );
  });
});
