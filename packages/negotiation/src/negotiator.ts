import { HttpError, lookupLanguage, MAX_ACCEPT_LANGUAGE_LENGTH } from '@plumbline/errors';
import Negotiator from 'negotiator';
import { LruCache } from './cache.js';
import {
  dropInvalidRanges,
  dropInvalidWeights,
  isJsonType,
  isXmlType,
  MAX_ACCEPT_LENGTH,
  parseMediaType,
  truncateAccept,
} from './media-type.js';
import { jsonSerializer, type Serializer, xmlSerializer } from './serializers.js';

/**
 * Vendor media types (`application/vnd.<name>.v<N>+json`, {@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#r-9-12 | conventions 9 (12)}) served
 * as JSON.
 *
 * @example
 * ```ts
 * const vendor: VendorOptions = { name: 'plumbline', versions: [1, 2] };
 * ```
 */
export interface VendorOptions {
  /** The vendor part of the type, e.g. `plumbline` for `application/vnd.plumbline.v2+json`. */
  readonly name: string;
  /**
   * Versions offered. Default: any `v<N>` the client asks for (no leading zeros), leaving the
   * decision whether N exists to the versioning layer.
   */
  readonly versions?: readonly number[];
}

/**
 * The vendor type a client was answered with; the versioning layer reads `version` from it.
 *
 * @example
 * ```ts
 * const match: VendorMatch = { name: 'plumbline', version: 2 };
 * ```
 */
export interface VendorMatch {
  readonly name: string;
  readonly version: number;
}

/**
 * Options for {@link createNegotiator}.
 *
 * @example
 * ```ts
 * const options: NegotiatorOptions = {
 *   types: ['application/json', 'application/xml'],
 *   languages: ['en', 'de'],
 *   defaultLanguage: 'en',
 *   vendor: { name: 'plumbline' },
 * };
 * ```
 */
export interface NegotiatorOptions {
  /**
   * Response media types, most preferred first (the first is what `*\/*` and a missing Accept
   * get). Text types are offered with `charset=utf-8`. Default `['application/json', 'application/xml']`.
   */
  readonly types?: readonly string[];
  /** Languages representations exist in. Default `['en', 'de']`. */
  readonly languages?: readonly string[];
  /** Language when Accept-Language matches none. Default: the first of `languages`. */
  readonly defaultLanguage?: string;
  /** Serve `application/vnd.<name>.v<N>+json` as JSON. A string is the vendor name. Default: off. */
  readonly vendor?: string | VendorOptions;
  /**
   * Serializers by media type (without parameters). JSON (`application/json`, `+json`) and XML
   * (`application/xml`, `text/xml`, `+xml`, root `<data>`) are built in; every other type in
   * `types` needs one here.
   */
  readonly serializers?: Readonly<Record<string, Serializer>>;
  /**
   * Decisions remembered per distinct Accept and per Accept-Language string (plus the last
   * Accept / Accept-Language pair). Default 500; 0 disables all three.
   */
  readonly cacheSize?: number;
}

/**
 * The request headers a negotiation reads. A missing Accept means `*\/*`.
 *
 * @example
 * ```ts
 * const input: NegotiateInput = { accept: 'application/xml', acceptLanguage: 'de-DE' };
 * ```
 */
export interface NegotiateInput {
  readonly accept?: string | undefined;
  readonly acceptLanguage?: string | undefined;
}

/**
 * A successful negotiation. Instances are shared and frozen: compare by value, never mutate.
 *
 * @example
 * ```ts
 * const n: Negotiation = { ok: true, mediaType: 'application/json',
 *   contentType: 'application/json; charset=utf-8', language: 'en' };
 * ```
 */
export interface Negotiation {
  readonly ok: true;
  /** The chosen type, lower-cased, without parameters. */
  readonly mediaType: string;
  /** The `Content-Type` header value to send. */
  readonly contentType: string;
  /** The chosen language (the `Content-Language` value). */
  readonly language: string;
  /** Present when a vendor type was chosen. */
  readonly vendor?: VendorMatch;
}

/**
 * No offered type is acceptable: `error` is a 406 `not_acceptable` listing the available types.
 * `language` is still negotiated so the error message can be localized.
 *
 * @example
 * ```ts
 * const result = negotiator.negotiate({ accept: 'text/html' });
 * if (!result.ok) throw result.error;
 * ```
 */
export interface NegotiationFailure {
  readonly ok: false;
  readonly error: HttpError;
  readonly language: string;
}

/**
 * What {@link ContentNegotiator.negotiate} returns.
 *
 * @example
 * ```ts
 * const result: NegotiationResult = negotiator.negotiate({ accept: 'application/json' });
 * ```
 */
export type NegotiationResult = Negotiation | NegotiationFailure;

/**
 * A serialized body with the headers that describe it.
 *
 * @example
 * ```ts
 * const { body, contentType, contentLanguage } = negotiator.serialize(negotiation, { id: 1 });
 * ```
 */
export interface Representation {
  readonly body: string | Uint8Array;
  readonly contentType: string;
  readonly contentLanguage: string;
}

/**
 * A configured negotiator: all parsing of options happened when it was created.
 *
 * @example
 * ```ts
 * const negotiator: ContentNegotiator = createNegotiator();
 * ```
 */
export interface ContentNegotiator {
  /** The media types listed in a 406 (`available`), most preferred first. */
  readonly available: readonly string[];
  readonly languages: readonly string[];
  readonly defaultLanguage: string;
  /** Picks the media type and language for a request. Never throws, whatever the headers hold. */
  negotiate(input?: NegotiateInput): NegotiationResult;
  /** Serializes `data` in the negotiated type. */
  serialize(negotiation: Negotiation, data: unknown): Representation;
}

interface Offer {
  /** The exact string handed to `negotiator` (identity comparison maps the answer back). */
  readonly offer: string;
  readonly mediaType: string;
  readonly vendor: VendorMatch | undefined;
  /** Frozen results per language index, built on first use so a cached hit allocates nothing. */
  readonly byLanguage: (Negotiation | undefined)[];
}

const DEFAULT_TYPES = ['application/json', 'application/xml'] as const;
const DEFAULT_LANGUAGES = ['en', 'de'] as const;
const DEFAULT_CACHE_SIZE = 500;
const LANGUAGE_TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/i;
const VENDOR_NAME = /^[a-z0-9][a-z0-9.-]*$/i;
const MAX_VERSION = 999_999;
/** Distinct dynamic vendor versions remembered; more are rebuilt on demand. */
const VENDOR_MEMO_SIZE = 64;

/**
 * The negotiator that made each decision. A {@link Negotiation} is created once per offer and
 * language of one negotiator and then shared, so this is filled once per decision, never per
 * request: the adapters find the negotiator of a request from its decision alone.
 */
const OWNERS = new WeakMap<Negotiation, ContentNegotiator>();

/**
 * The negotiator whose `negotiate` returned `negotiation`, or `undefined` for anything else
 * (a hand-made object, `undefined`). Internal to the adapters.
 */
export function negotiatorOf(negotiation: Negotiation | null | undefined): ContentNegotiator | undefined {
  return negotiation ? OWNERS.get(negotiation) : undefined;
}

function isTextual(essence: string): boolean {
  return essence.startsWith('text/') || isJsonType(essence) || isXmlType(essence);
}

function offerString(essence: string, params: Readonly<Record<string, string>>): string {
  const all = { ...params };
  if (all['charset'] === undefined && isTextual(essence)) all['charset'] = 'utf-8';
  return [essence, ...Object.entries(all).map(([name, value]) => `${name}=${value}`)].join('; ');
}

/** Conservative: true unless no range of `accept` can possibly name a parameter of an offer. */
function mayNameParameters(accept: string, names: readonly string[]): boolean {
  if (names.length === 0 || !accept.includes('=')) return false;
  const lower = accept.toLowerCase();
  return names.some((name) => lower.includes(name));
}

function makeOffer(offer: string, mediaType: string, vendor?: VendorMatch): Offer {
  return { offer, mediaType, vendor, byLanguage: [] };
}

function vendorOffer(name: string, version: number): Offer {
  const essence = `application/vnd.${name}.v${version}+json`;
  return makeOffer(offerString(essence, {}), essence, Object.freeze({ name, version }));
}

function normalizeVendor(vendor: string | VendorOptions | undefined): VendorOptions | undefined {
  if (vendor === undefined) return undefined;
  const options = typeof vendor === 'string' ? { name: vendor } : vendor;
  if (!VENDOR_NAME.test(options.name)) {
    throw new TypeError(`vendor.name must match ${VENDOR_NAME}, got "${options.name}"`);
  }
  for (const version of options.versions ?? []) {
    if (!Number.isInteger(version) || version < 0 || version > MAX_VERSION) {
      throw new RangeError(`vendor.versions must be integers from 0 to ${MAX_VERSION}, got ${version}`);
    }
  }
  return { ...options, name: options.name.toLowerCase() };
}

function normalizeLanguages(languages: readonly string[], defaultLanguage: string | undefined) {
  if (languages.length === 0) throw new TypeError('languages must not be empty');
  const seen = new Set<string>();
  for (const tag of languages) {
    if (!LANGUAGE_TAG.test(tag)) throw new TypeError(`Invalid language tag "${tag}"`);
    if (seen.has(tag.toLowerCase())) throw new TypeError(`Language "${tag}" is listed twice`);
    seen.add(tag.toLowerCase());
  }
  const wanted = (defaultLanguage ?? languages[0] ?? '').toLowerCase();
  const fallback = languages.find((tag) => tag.toLowerCase() === wanted);
  if (fallback === undefined) {
    throw new RangeError(`defaultLanguage "${defaultLanguage}" is not one of languages`);
  }
  return { languages: Object.freeze([...languages]), fallback };
}

function resolveSerializers(
  essences: readonly string[],
  custom: Readonly<Record<string, Serializer>>,
): Map<string, Serializer> {
  const byType = new Map<string, Serializer>();
  const lowerCustom = new Map(Object.entries(custom).map(([type, s]) => [type.toLowerCase(), s]));
  const xml = xmlSerializer();
  for (const essence of essences) {
    const serializer =
      lowerCustom.get(essence) ??
      (isJsonType(essence) ? (lowerCustom.get('application/json') ?? jsonSerializer) : undefined) ??
      (isXmlType(essence) ? (lowerCustom.get('application/xml') ?? xml) : undefined);
    if (!serializer) throw new TypeError(`No serializer for "${essence}"; pass one in serializers`);
    byType.set(essence, serializer);
  }
  return byType;
}

/**
 * Creates a content negotiator ({@link https://github.com/plumbline/plumbline/blob/main/docs/conventions.md#s-4-5 | conventions 4.5}) on `negotiator`. Media types: highest q wins,
 * `q=0` excludes, the most specific matching range decides a type's q, ties go to the client's
 * order and then to `types` order; a missing Accept means `*\/*`; an empty or unparseable one
 * that matches nothing is a 406. Ranges with an invalid weight (`q=abc`) are ignored, and Accept
 * headers over 1 KiB are cut to their complete ranges within the first 1 KiB. Languages: RFC 4647
 * lookup (`lookupLanguage` of `@plumbline/errors`) with fallback to the default: never a 406.
 * Decisions are cached per header string in bounded LRU caches, and the last one per header pair.
 *
 * @example
 * ```ts
 * const negotiator = createNegotiator({ languages: ['en', 'de'], vendor: 'plumbline' });
 * negotiator.negotiate({ accept: 'application/xml;q=0.9, application/json;q=0.8', acceptLanguage: 'de-DE' });
 * // { ok: true, mediaType: 'application/xml', contentType: 'application/xml; charset=utf-8', language: 'de' }
 * negotiator.negotiate({ accept: 'text/html' }).ok; // false: result.error is a 406 not_acceptable
 * ```
 */
export function createNegotiator(options: NegotiatorOptions = {}): ContentNegotiator {
  const types = options.types ?? DEFAULT_TYPES;
  if (types.length === 0) throw new TypeError('types must not be empty');
  const offers: Offer[] = [];
  for (const type of types) {
    const parsed = parseMediaType(type);
    if (!parsed || parsed.essence.includes('*')) throw new TypeError(`Invalid response media type "${type}"`);
    if (offers.some((o) => o.mediaType === parsed.essence)) {
      throw new TypeError(`Media type "${parsed.essence}" is listed twice`);
    }
    offers.push(makeOffer(offerString(parsed.essence, parsed.params), parsed.essence));
  }
  const vendor = normalizeVendor(options.vendor);
  for (const version of vendor?.versions ?? []) offers.push(vendorOffer(vendor!.name, version));
  const serializers = resolveSerializers(
    offers.map((o) => o.mediaType),
    options.serializers ?? {},
  );
  const vendorSerializer =
    Object.entries(options.serializers ?? {}).find(
      ([type]) => type.toLowerCase() === 'application/json',
    )?.[1] ?? jsonSerializer;
  const { languages, fallback } = normalizeLanguages(
    options.languages ?? DEFAULT_LANGUAGES,
    options.defaultLanguage,
  );
  const languageIndex = new Map(languages.map((tag, index) => [tag, index]));
  const fallbackIndex = languageIndex.get(fallback) ?? 0;
  const available = Object.freeze(offers.map((o) => o.mediaType));

  const offerStrings = offers.map((o) => o.offer);
  // negotiator re-parses every offer for every range; parameters on an offer only matter to a
  // range that names them, so a header without "charset" is matched against bare essences.
  const essenceStrings = offers.map((o) => o.mediaType);
  const parameterNames = [
    ...new Set(offers.flatMap((o) => Object.keys(parseMediaType(o.offer)?.params ?? {}))),
  ];
  const byOffer = new Map<string, Offer>([
    ...offers.map((o) => [o.offer, o] as const),
    ...offers.map((o) => [o.mediaType, o] as const),
  ]);
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const mediaCache = new LruCache<string, Offer | null>(cacheSize);
  const languageCache = new LruCache<string, number>(cacheSize);

  const dynamicVendor = vendor !== undefined && vendor.versions === undefined;
  const vendorPattern = dynamicVendor
    ? new RegExp(
        `application/vnd\\.${vendor.name.replace(/[.-]/g, '\\$&')}\\.v(0|[1-9]\\d{0,5})\\+json(?=[ \\t]*(?:[;,]|$))`,
        'gi',
      )
    : undefined;
  const vendorMemo = new LruCache<number, Offer>(VENDOR_MEMO_SIZE);
  const vendorPrefix = dynamicVendor ? `vnd.${vendor.name}.` : '';

  function dynamicVendorOffers(header: string): Offer[] {
    if (!vendorPattern || !header.toLowerCase().includes(vendorPrefix)) return [];
    const found: Offer[] = [];
    for (const match of header.matchAll(vendorPattern)) {
      const version = Number(match[1]);
      let offer = vendorMemo.get(version);
      if (!offer) {
        offer = vendorOffer(vendor!.name, version);
        vendorMemo.set(version, offer);
      }
      if (!found.includes(offer)) found.push(offer);
    }
    return found;
  }

  function decide(header: string): Offer | null {
    const accept = dropInvalidRanges(dropInvalidWeights(header));
    const extra = dynamicVendorOffers(accept);
    const base = mayNameParameters(accept, parameterNames) ? offerStrings : essenceStrings;
    const candidates = extra.length === 0 ? base : [...offerStrings, ...extra.map((o) => o.offer)];
    const chosen = new Negotiator({ headers: { accept } }).mediaType(candidates);
    if (chosen === undefined) return null;
    return byOffer.get(chosen) ?? extra.find((o) => o.offer === chosen) ?? null;
  }

  // A missing Accept is the most common request of all; decide it once.
  const defaultOffer = offers[0]!;

  function chooseOffer(accept: unknown): Offer | null {
    if (typeof accept !== 'string') return defaultOffer;
    const key = accept.length > MAX_ACCEPT_LENGTH ? truncateAccept(accept) : accept;
    const cached = mediaCache.get(key);
    if (cached !== undefined) return cached;
    const decided = decide(key);
    mediaCache.set(key, decided);
    return decided;
  }

  function chooseLanguage(header: unknown): number {
    if (typeof header !== 'string' || header === '') return fallbackIndex;
    const key =
      header.length > MAX_ACCEPT_LANGUAGE_LENGTH ? header.slice(0, MAX_ACCEPT_LANGUAGE_LENGTH) : header;
    const cached = languageCache.get(key);
    if (cached !== undefined) return cached;
    const index = languageIndex.get(lookupLanguage(key, languages, fallback)) ?? fallbackIndex;
    languageCache.set(key, index);
    return index;
  }

  function result(offer: Offer, index: number): Negotiation {
    const existing = offer.byLanguage[index];
    if (existing) return existing;
    const created: Negotiation = Object.freeze({
      ok: true,
      mediaType: offer.mediaType,
      contentType: offer.offer,
      language: languages[index] ?? fallback,
      ...(offer.vendor ? { vendor: offer.vendor } : {}),
    });
    offer.byLanguage[index] = created;
    OWNERS.set(created, negotiator);
    return created;
  }

  // The last successful decision and the two header values it was made for: a service's clients
  // mostly send the same pair, and two string comparisons are cheaper than two cache look-ups.
  // Keyed on both headers exactly as received (a missing header is `undefined`, never `''`).
  let lastAccept: unknown;
  let lastLanguage: unknown;
  let last: Negotiation | undefined;

  const negotiator: ContentNegotiator = Object.freeze({
    available,
    languages,
    defaultLanguage: fallback,
    negotiate(input: NegotiateInput = {}): NegotiationResult {
      const { accept, acceptLanguage } = input;
      if (last !== undefined && accept === lastAccept && acceptLanguage === lastLanguage) return last;
      const index = chooseLanguage(acceptLanguage);
      const offer = chooseOffer(accept);
      if (offer) {
        if (cacheSize === 0) return result(offer, index);
        lastAccept = accept;
        lastLanguage = acceptLanguage;
        last = result(offer, index);
        return last;
      }
      return {
        ok: false,
        error: new HttpError('not_acceptable', {
          params: { available },
          extensions: { available: [...available] },
        }),
        language: languages[index] ?? fallback,
      };
    },
    serialize(negotiation: Negotiation, data: unknown): Representation {
      const serializer =
        serializers.get(negotiation.mediaType) ?? (negotiation.vendor ? vendorSerializer : undefined);
      if (!serializer) throw new TypeError(`This negotiator does not serve "${negotiation.mediaType}"`);
      return {
        body: serializer(data, { mediaType: negotiation.mediaType, language: negotiation.language }),
        contentType: negotiation.contentType,
        contentLanguage: negotiation.language,
      };
    },
  });
  return negotiator;
}
