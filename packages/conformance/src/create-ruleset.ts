/**
 * `@plumbline/conformance/ruleset`: the Plumbline Spectral ruleset, to build one with other options
 * (`createRuleset`) in a `.spectral.mjs`. The ready-made ruleset file for `spectral lint --ruleset`
 * is `dist/ruleset.mjs` (src/ruleset.ts), which has a default export only.
 * No runtime dependencies: each rule is a plain function over the whole (resolved) document.
 *
 * @packageDocumentation
 */
import {
  DEFAULT_IGNORED_PATHS,
  deref,
  isIgnoredPath,
  isObject,
  isSearchAction,
  type JsonObject,
  type OperationRef,
  operationsOf,
  type ParameterInfo,
  type PathShape,
  paginationStyle,
  parametersOf,
  parsePath,
  pathsOf,
  VENDOR_MEDIA,
  VERSION_HEADER,
  VERSION_QUERY,
} from './openapi.js';
import { LINT_RULES } from './rules.js';
import {
  answersList,
  answersOneValue,
  normalizeName,
  prefixOf,
  structureOf,
  successSchema,
} from './structure.js';
import { actionVerb, endsInNoun, isNounVerb, isPluralOfWord, isWord, segmentWords } from './words.js';

type JsonPath = (string | number)[];

/** What a rule function reports: Spectral's `IFunctionResult`. */
export interface RuleViolation {
  readonly message: string;
  readonly path: (string | number)[];
}

interface Context {
  readonly document: unknown;
  readonly ignored: readonly RegExp[];
}

type Check = (context: Context) => RuleViolation[];

/**
 * Options for {@link createRuleset}.
 *
 * @example
 * ```ts
 * const options: RulesetOptions = { ignorePaths: [/^\/internal\//] };
 * ```
 */
export interface RulesetOptions {
  /**
   * More paths that are not resources, matched against the path with and without its version
   * prefix. They add to {@link DEFAULT_IGNORED_PATHS} (`/.well-known`, `/openapi.json`, `/health`,
   * `/oauth`, `/errors`, ...), which always apply.
   */
  readonly ignorePaths?: readonly RegExp[];
  /** Rule ids to leave out. */
  readonly disable?: readonly string[];
  /** Called as each rule starts (progress on large documents). */
  readonly onRule?: (id: string, index: number, total: number) => void;
}

// ---------------------------------------------------------------------------------------------
// Word lists. Conservative on purpose: a false finding costs a team more than a missed one.

const IRREGULAR_PLURALS = new Set([
  'people',
  'children',
  'men',
  'women',
  'data',
  'media',
  'criteria',
  'feet',
  'teeth',
  'mice',
  'geese',
  'indices',
  'matrices',
  'metadata',
  'news',
  'series',
  'species',
  'analytics',
  'settings',
  'sheep',
  'fish',
  'aircraft',
  // Collective nouns that name a list as a whole.
  'activity',
  'history',
  'timeline',
  'following',
  'feedback',
  'inventory',
  // Latin plurals.
  'loci',
  'foci',
  'radii',
  'nuclei',
  'stimuli',
  'alumni',
  // Acronym plurals that end like Latin singulars (analysis, basis).
  'apis',
  'kpis',
  'sdks',
]);

/**
 * Nouns whose singular names the whole list: collectives whose members are of another kind (a
 * `log` of entries, a `mempool` of transactions, a `queue` of jobs) and mass nouns (`software`,
 * `equipment`). Also matched as the end of a compound (`seenlog`, `mempool`, `auditlog`).
 */
const COLLECTIVE_NOUNS: ReadonlySet<string> = new Set([
  'log',
  'ledger',
  'feed',
  'pool',
  'queue',
  'inbox',
  'outbox',
  'trash',
  'backlog',
  'equipment',
  'information',
  'software',
  'hardware',
  'content',
  'storage',
  'mail',
  'traffic',
  'music',
  'staff',
  'telemetry',
  'usage',
  'maintenance',
  'health',
  'evidence',
  'knowledge',
  'luggage',
  'baggage',
  'furniture',
  'documentation',
  'clothing',
  'data',
  'presence',
]);

/** Last words of a key's name: `external_id`, `user_name`, `email`. */
const KEY_WORDS: ReadonlySet<string> = new Set([
  'id',
  'key',
  'name',
  'slug',
  'code',
  'number',
  'hash',
  'uuid',
  'guid',
  'email',
  'username',
  'handle',
  'sku',
  'upc',
  'ean',
  'isbn',
  'vin',
]);

/** Names of an encoding: `/labels/{label}/cbor` selects a representation, not a collection. */
const FORMAT_WORDS: ReadonlySet<string> = new Set([
  'json',
  'xml',
  'cbor',
  'csv',
  'yaml',
  'yml',
  'html',
  'pdf',
  'raw',
  'svg',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'xlsx',
  'txt',
  'rss',
  'atom',
]);

/**
 * Adjectives and qualifiers that choose a subset or a view, and so name no collection of their own:
 * `/images/{id}/similar`, `/collections/featured`, `/events/{year}/simple`, `/Fireteam/Clan/{id}/My/...`.
 */
const QUALIFIERS: ReadonlySet<string> = new Set([
  'similar',
  'related',
  'simple',
  'strong',
  'available',
  'my',
  'mine',
  'current',
  'default',
]);

/**
 * A name that ends in a number (`Destiny2`, `ec2`, `auth0`) is a product's or a namespace's name,
 * not a noun. A version suffix (`GroupV2`) is not such a number: `Group` is still the noun.
 */
const NUMBERED_NAME = /^[A-Za-z]*[A-UW-Za-uw-z]\d+$/;

/** Names of a period (`year`, `date`): a parameter so named is a filter's value, not a member's id. */
const PERIOD_NAMES = 'year|month|week|day|date|quarter|season';
/** A parameter that names a period (`{year}`, `{date}`). */
const PERIOD_PARAMETER = new RegExp(`^\\{(${PERIOD_NAMES})\\}$`, 'i');

/** Prepositions: `/from/{a}/to/{b}` is a route phrase, not two collections. */
const PREPOSITIONS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'into',
  'via',
  'per',
  'at',
  'in',
  'on',
  'for',
  'of',
  'with',
]);

/**
 * State words and adjectives: as a sub-path of a collection they select a subset of it
 * (`/todos/completed`, `/projects/archived`), which docs/conventions.md 4.1 (5) and (6) send to the query.
 */
const STATE_WORDS = new Set([
  'active',
  'inactive',
  'archived',
  'deleted',
  'completed',
  'complete',
  'incomplete',
  'done',
  'undone',
  'pending',
  'open',
  'closed',
  'enabled',
  'disabled',
  'recent',
  'latest',
  'newest',
  'oldest',
  'popular',
  'trending',
  'featured',
  'top',
  'all',
  'published',
  'unpublished',
  'expired',
  'starred',
  'unread',
  'local',
  'visible',
  'hidden',
  'overdue',
  'upcoming',
]);

/**
 * Words after a plural noun that choose how much of each item is shown, not another noun:
 * `fareLineItemsBasic`, `ordersSummary`, `usersVerbose`.
 */
const PRESENTATION_MODIFIERS: ReadonlySet<string> = new Set([
  'basic',
  'verbose',
  'summary',
  'detail',
  'details',
  'detailed',
  'full',
  'lite',
  'brief',
  'compact',
  'extended',
  'minimal',
  'expanded',
]);

/**
 * A filter phrase written as one word: a `by` between two lower-case parts (`timeadjbyroute`,
 * `terminalsandmatesbyroute`, `sailingsbydate`). The part before `by` does not end in `b`, so
 * `hobbyists` and `lobbyists` are words, not phrases.
 */
const JOINED_FILTER_PHRASE = /^[a-z]{2,}[ac-z]by[a-z]{3,}$/;

/** Sort, filter and search phrases: `/sorted-by-name`, `/order-by-date`, `/by-owner`, `/filter`, `/search`. */
const FILTER_PHRASE =
  /^((sorted|ordered)(-by)?(-.+)?|(sort|order)-by(-.+)?|by-.+|filter(ed)?(-by)?(-.+)?|top-\d+|search)$/;

/**
 * Page-size and cursor names besides 4.4's: `per_page`, `page_size`, JSON:API's `page[size]` and
 * `page[cursor]`, OData's `$top`, `take`, `page_token`, `after`.
 */
const PAGE_ALIASES =
  /^(\w*per_?page|search_?after|(max|min|since|until)_?id|items_?per_?page|page_?size|page_?limit|max_?results|max_?items|page_?token|next_?token|starting_after|(exclusive_)?start_?key|after|before|first|last|\$?top|take|page\[(size|limit|number|cursor|after|before|offset)\])$/i;
/**
 * Names of a page size or offset only when the schema is a number (`count=25`, not a `count=true`
 * flag; `max=20` items, `skip=40` items).
 */
const NUMERIC_PAGE_SIZES = /^(count|size|max|skip|page)$/i;
/** A parameter description that says the number pages: "the page number", "results per page". */
const PAGE_DESCRIPTION =
  /\b(page number|number of (the )?page|per page|page size|size of (the|a|each) page)\b/i;
/**
 * A number the document describes as how many results to return (Spoonacular's `number`: "The number of
 * results to return"): a page size, or a top-n the request sets.
 */
const RESULT_COUNT_DESCRIPTION =
  /\b(number|count|amount) of (results|items|records|entries|rows|objects|matches|suggestions) (to (return|be returned|show|fetch|retrieve)|returned)\b|\bhow many (results|items|records|entries) (to return|are returned|will be returned)\b/i;
/** Names of a page number (`page`, `page_num`, `pageNo`). */
const PAGE_NUMBER_NAMES = 'page([_-]?(num|number|no|index))?|pageno';
/** A page number written as a path parameter. */
const PAGE_PATH_PARAMETER = new RegExp(`^(${PAGE_NUMBER_NAMES})$`, 'i');
/**
 * A version at the end of a server URL or before its next segment: `/v1`, `/v2.1`, `/2.0`, a
 * three-part number (`/api/1.0.0`, `/v1.0.0`), or a version written together with `api` (`/apiv1`).
 */
const SERVER_VERSION =
  /\/(api-?)?(v\d+(\.\d+){0,2}|\d+\.\d+(\.\d+)?)(\/|$)|^[a-z]+:\/\/[^/]+(\/[^/]+)*\/\d{1,2}\/?$/i;
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,4}$/;
const CREDENTIAL_QUERY = new Set([
  'access_token',
  'api_key',
  'apikey',
  'api-key',
  'auth_token',
  'private_token',
]);
/** Names that are credentials only when the parameter says so (a cache `key`, a page `token` are not). */
const AMBIGUOUS_CREDENTIAL_QUERY = new Set(['token', 'key']);
const CREDENTIAL_WORDS = /\b(api|auth\w*|credential|secret|access|bearer|password)\b/i;

function isPlural(word: string): boolean {
  if (IRREGULAR_PLURALS.has(word) || endsInNoun(word, COLLECTIVE_NOUNS)) return true;
  if (!word.endsWith('s') || word.endsWith('ss')) return false;
  // `-us` and `-is` end Latin singulars (status, analysis) and plurals of words ending in a vowel
  // (`wikis`, `menus`): the dictionary tells them apart.
  return !/(us|is)$/.test(word) || isPluralOfWord(word);
}

/**
 * The head noun of a segment: the last word, or the one before a preposition (`codes-of-conduct`,
 * `branches-where-head`) or before a presentation modifier (`fareLineItemsVerbose`); a version
 * suffix (`projectsV2`) is not a word.
 */
function headNoun(segment: string): string | undefined {
  const list = segmentWords(segment.replace(EXTENSION, '')).filter((word) => !/^v\d+$/.test(word));
  const of = list.findIndex((word) => ['of', 'where', 'for', 'with', 'by'].includes(word));
  if (of > 0) return list[of - 1];
  // A presentation modifier after the noun (`fareLineItemsBasic`) is not the noun.
  const last = list.at(-1);
  if (list.length > 1 && last !== undefined && PRESENTATION_MODIFIERS.has(last)) return list.at(-2);
  // A key after the noun names how it is addressed (Akeneo's `products-uuid`): the noun is before it.
  if (list.length > 1 && last !== undefined && ['id', 'uuid', 'guid'].includes(last)) return list.at(-2);
  return last;
}

/**
 * A collection by structure (members, paging or a list response: see structure.ts), or a path
 * that accepts POST and ends in a plural noun (it creates members, as `POST /projects` does).
 * Singletons (`/me`, `/config`) and actions (`/restore`, `/login`) are not collections.
 */
function isCollection(context: Context, path: string): boolean {
  if (structureOf(context.document).collections.has(path)) return true;
  const shape = parsePath(path);
  const last = shape.segments.at(-1);
  if (last === undefined || last.param || isSearchAction(shape)) return false;
  const paths = isObject(context.document) ? context.document['paths'] : undefined;
  const item = isObject(paths) ? deref(context.document, paths[path]) : undefined;
  const noun = headNoun(last.text);
  if (!isObject(item) || !isObject(item['post']) || actionVerb(last.text) !== undefined) return false;
  if (noun === undefined || !isPlural(noun)) return false;
  // POST without GET is a collection only when it says it creates (201) or the set is also
  // managed there (PUT, PATCH, DELETE); otherwise it is a call: rclone's POST /core/stats reads,
  // a webhook's POST /pings acts.
  // A GET that answers one object makes the path a singleton when its POST does not create
  // (`UpdateDefaults`): the POST changes that object.
  if (isObject(item['get'])) return !updatesSingleton(context, path, item);
  if (['put', 'patch', 'delete'].some((method) => isObject(item[method]))) return true;
  const responses = deref(context.document, item['post']['responses']);
  return isObject(responses) && '201' in responses;
}

/**
 * Whether a path is one object that its POST changes: its GET answers one object (not a list, see
 * `answersOneValue`) and its POST neither reads nor creates (see {@link createsByPost}): Twilio's
 * `GET /v1/Assistants/{AssistantSid}/Defaults` with `POST` `UpdateDefaults`.
 */
function updatesSingleton(context: Context, path: string, item: JsonObject): boolean {
  const get = item['get'];
  const post = item['post'];
  if (!isObject(get) || !isObject(post) || !answersOneValue(context.document, item)) return false;
  const schema = successSchema(context.document, get);
  if (schema === undefined || (schema['type'] !== 'object' && !isObject(schema['properties']))) return false;
  const op: OperationRef = { path, method: 'post', operation: post, pathItem: item };
  // A POST that reads (Shopware's `listAdvancedProductCatalogCategoriesPost`) is the GET's twin.
  return !isReadByPost(context, op) && !createsByPost(context, op);
}

/**
 * Whether the segment `index` of a path, followed by a parameter, is an action keyed by it rather
 * than a collection and its member: nothing lists the segment or reads or writes the member as one
 * item (no GET, PUT, PATCH or DELETE on `<segment>` or on any path under `<segment>/{param}`, and no
 * POST there that reads, see {@link isReadByPost}), so every call under it is an action (Qualpay's
 * `POST /refund/{pgIdOrig}`, `POST /void/{pgIdOrig}`; Conjur's `POST /ca/{account}/{service_id}/sign`). A
 * segment right after a collection is not one: it names a part of that collection.
 */
function isKeyedAction(context: Context, path: string, index: number): boolean {
  // After a collection (`/v1/labels/shipment/{shipment_id}`, with `/v1/labels/{label_id}`) the segment
  // names a sub-collection of it, whatever is done there.
  const before = parsePath(path).segments[index - 1];
  if (before !== undefined && !before.param) {
    const parent = prefixOf(path, index - 1);
    if (structureOf(context.document).withMembers.has(parent) || isCollection(context, parent)) return false;
  }
  // Parameter names may differ between paths (`/selling/{id}`, `/selling/{order_id}/refund_requests`).
  const shape = (template: string): string => template.replace(/\{[^{}]*\}/g, '{}');
  const collection = shape(prefixOf(path, index));
  const member = shape(prefixOf(path, index + 1));
  const read = ['get', 'put', 'patch', 'delete'];
  return pathsOf(context.document).every(([raw, item]) => {
    const other = shape(raw);
    const under = other === collection || other === member || other.startsWith(`${member}/`);
    if (!under) return true;
    if (read.some((method) => isObject(item[method]))) return false;
    // An API that reads with POST (Shopware's `POST /pending-order/{id}`, fetchPendingOrder).
    const post = item['post'];
    return (
      !isObject(post) ||
      !isReadByPost(context, { path: raw, method: 'post', operation: post, pathItem: item })
    );
  });
}

const trimSlash = (path: string): string => path.replace(/(.)\/+$/, '$1');

/** A path item by its template, with or without a trailing slash. */
function itemAt(context: Context, path: string): JsonObject | undefined {
  const item = deref(context.document, pathItem(context, path) ?? pathItem(context, `${trimSlash(path)}/`));
  return isObject(item) ? item : undefined;
}

/**
 * Whether the document shows that segment `index` of a path, followed by a parameter, is a
 * collection and the parameter one of its members: the member's own path reads or writes one item
 * (`GET /pet/{petId}`), and either the segment's own path has an operation (it lists or creates:
 * `GET /pet` or `POST /pet`) or the parameter is named as the segment's key (`/team/{team_key}`).
 * A member path nothing reads (`/spaces/flag/{itemId}`, only PUT as an action), or a segment with
 * neither (`/enm/{db}/substance`: an API's namespace before a database name; `/delay/{delay}`) is
 * no evidence.
 */
function showsCollection(context: Context, path: string, index: number): boolean {
  const member = itemAt(context, prefixOf(path, index + 1));
  if (member === undefined || !['get', 'put', 'patch', 'delete'].some((method) => isObject(member[method])))
    return false;
  const collection = itemAt(context, prefixOf(path, index));
  const { segments } = parsePath(path);
  return (
    (collection !== undefined &&
      ['get', 'post', 'put', 'patch', 'delete'].some((method) => isObject(collection[method]))) ||
    namesMemberKey(segments[index]?.text ?? '', segments[index + 1]?.text ?? '')
  );
}

/**
 * Whether a parameter is named as the key of the segment before it: the segment's name and a key
 * word (`team/{team_key}`, `org/{orgId}`, `landing-page/{landingPageId}`), the way members of a
 * collection are addressed, unlike a value the segment takes (`/delay/{delay}`, `/Mode/{modes}`).
 */
function namesMemberKey(segment: string, param: string): boolean {
  const flat = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const name = flat(segment);
  return name !== '' && KEY_SUFFIXES.some((key) => flat(param) === `${name}${key}`);
}

/** The words that end a parameter named as a collection's key (`orgId`, `team_key`, `AccountSid`). */
const KEY_SUFFIXES = [
  'id',
  'uuid',
  'guid',
  'key',
  'number',
  'no',
  'num',
  'slug',
  'code',
  'sid',
  'gid',
  'ref',
  'name',
];

/**
 * Whether the last segment of a path counts as a collection level for the nesting rule: a
 * collection by structure or words, not an action (`/pulls/{n}/merge`) nor a singleton the
 * document answers with one object (`/sites/{s}/publishing/preview`). A GET without a response
 * schema is judged by the words: a plural noun is a collection.
 */
function isCollectionLeaf(context: Context, path: string, item: JsonObject): boolean {
  if (isCollection(context, path)) return true;
  const last = parsePath(path).segments.at(-1);
  if (last === undefined || last.param || actionVerb(last.text) !== undefined) return false;
  const get = item['get'];
  if (!isObject(get)) return false;
  if (successSchema(context.document, get) !== undefined) return false;
  const noun = headNoun(last.text);
  return noun !== undefined && isPlural(noun);
}

/**
 * Whether a static segment before `{param}` names the key the parameter is looked up by: a
 * `by-` phrase (`by-name/{name}`, `byEmail/{email}`) or the parameter's own name when that names a
 * key (`external_batch_id/{external_batch_id}`, `email/{email}`); `git/ref/{ref}` or
 * `cluster/{cluster}` name a singular collection, not a key.
 */
function isKeyName(segment: string, param: string): boolean {
  if (/^by([-_]|[A-Z])/.test(segment)) return true;
  const last = segmentWords(segment).at(-1);
  return (
    last !== undefined && KEY_WORDS.has(last) && normalizeName(segment) === normalizeName(param.slice(1, -1))
  );
}

function pathItem(context: Context, path: string): unknown {
  const paths = isObject(context.document) ? context.document['paths'] : undefined;
  return isObject(paths) ? paths[path] : undefined;
}

function resourcePaths(context: Context): { path: string; shape: PathShape; item: JsonObject }[] {
  return pathsOf(context.document)
    .map(([path, item]) => ({ path, shape: parsePath(path), item }))
    .filter(({ shape }) => !isIgnoredPath(shape, context.ignored));
}

function resourceOperations(context: Context): OperationRef[] {
  return operationsOf(context.document).filter((op) => !isIgnoredPath(parsePath(op.path), context.ignored));
}

function staticSegments(shape: PathShape): string[] {
  return shape.segments.filter((segment) => !segment.param).map((segment) => segment.text);
}

function responsesOf(context: Context, op: OperationRef): [string, JsonObject][] {
  const responses = deref(context.document, op.operation['responses']);
  if (!isObject(responses)) return [];
  return Object.entries(responses).flatMap(([status, raw]) => {
    const response = deref(context.document, raw);
    return isObject(response) ? [[status, response] as [string, JsonObject]] : [];
  });
}

function hasHeader(context: Context, response: JsonObject, name: string): boolean {
  const headers = deref(context.document, response['headers']);
  if (!isObject(headers)) return false;
  return Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());
}

function onlyPostMethods(item: JsonObject): boolean {
  return Object.keys(item).every((key) => !['get', 'put', 'patch', 'delete'].includes(key));
}

// ---------------------------------------------------------------------------------------------
// Path rules: one finding per path, pointing at the path key.

const pluralNouns: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape, item }) => {
    const structure = structureOf(context.document);
    const bad = shape.segments.filter((segment, index) => {
      if (segment.param || segment.text.includes('{')) return false;
      // A static segment after another one without members of its own is a sub-path (a filter, an
      // action, a singleton): the filter and verb rules judge it.
      const before = shape.segments[index - 1];
      if (before !== undefined && !before.param && !structure.withMembers.has(prefixOf(path, index)))
        return false;
      // Structure first: a segment is a collection when its members follow it ({id}), or, as the
      // last segment, when the document shows it has members, pages or answers with a list.
      // A singleton (/me, /payment, /config) or an action (/restore) is not a collection.
      const next = shape.segments[index + 1];
      // A lookup by an alternate key after a collection names the key, not another collection:
      // /users/by-name/{name}, /batches/external_batch_id/{external_batch_id}. At the root
      // (/udprn/{udprn}) the key stands where the collection's name should.
      if (next?.param === true && before?.param === false && isKeyName(segment.text, next.text)) return false;
      if (FORMAT_WORDS.has(segment.text.toLowerCase())) return false;
      // An adjective (/collections/featured, /images/{id}/similar) or a numbered name (/Destiny2/{type})
      // names no collection.
      const lower = segment.text.toLowerCase();
      if (STATE_WORDS.has(lower) || QUALIFIERS.has(lower) || NUMBERED_NAME.test(segment.text)) return false;
      // A preposition of a route phrase (Wikimedia's `/from/{from_lang}/to/{to_lang}`) names no collection.
      if (PREPOSITIONS.has(segment.text.toLowerCase())) return false;
      // A filter phrase written as one word (/timeadjbyroute/{RouteID}): the parameter after it is
      // the filter's value, not a member; the casing rule reports the joined words.
      if (JOINED_FILTER_PHRASE.test(segment.text)) return false;
      // Evidence, not words: the document must show the segment is a collection with members (see
      // showsCollection); a name that only looks singular before a parameter is not reported.
      const collection =
        next === undefined
          ? isCollection(context, path) && structure.withMembers.has(path)
          : next.param && !isKeyedAction(context, path, index) && showsCollection(context, path, index);
      const noun = headNoun(segment.text);
      // A search call keyed by what it searches (/user-search/{projectKey}, /search/{indices}) or
      // only POSTed to (POST /search) is an action, not a collection; a lookup (`/barcode-lookup`,
      // `/lookup/{barcode}`) is a call too.
      if (noun === 'search' && (next?.param === true || (next === undefined && onlyPostMethods(item))))
        return false;
      if (noun === 'lookup') return false;
      // A verb segment (/utils/import/{collection}) is the verb rule's finding, not a collection.
      if (actionVerb(segment.text) !== undefined) return false;
      // A word the English dictionary does not know (a German `registrierkassen`, an acronym such as
      // `enm`, words run together) cannot be judged singular: only English nouns are reported.
      return collection && noun !== undefined && isWord(noun) && !isPlural(noun);
    });
    return bad.length === 0
      ? []
      : [{ message: `"${bad[0]!.text}" in ${path} is not a plural noun`, path: ['paths', path] }];
  });

const noVerbs: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape, item }) => {
    const { segments } = shape;
    const structure = structureOf(context.document);
    const read = isObject(item['get']);
    const words = segments.filter((segment) => !segment.param && !segment.text.includes('{'));
    const verbs = segments.filter((segment, index) => {
      if (segment.param || actionVerb(segment.text) === undefined) return false;
      // A name the document lists and addresses by member (`/import-export-file` with
      // `/import-export-file/{id}`, `/stages/user_delete/{stage_uuid}/`) is a collection, whatever its first word.
      if (structure.managed.has(segment.text)) return false;
      // A state word after a plural noun (`/iterations/open`, the open iterations) selects a subset of
      // that collection: the filter rule's concern, not an action.
      const before = segments[index - 1];
      const noun = before === undefined || before.param ? undefined : headNoun(before.text);
      if (STATE_WORDS.has(segment.text.toLowerCase()) && noun !== undefined && isPlural(noun)) return false;
      // POST /<collection>/search is allowed by docs/conventions.md 4.2 (7).
      if (index === segments.length - 1 && isSearchAction(shape) && onlyPostMethods(item)) return false;
      // A noun-verb that the document reads (GET /repos/{o}/{r}/import) names a resource.
      if (isNounVerb(segment.text)) {
        const named = deref(context.document, pathItem(context, prefixOf(path, index)));
        if (isObject(named) && isObject(named['get'])) return false;
      }
      // A verb before more words of a path the document reads names an area of the API
      // (GET /compute/settings); on a path that is only written to it is the action
      // (POST /validate/api, POST /batches/{id}/process/labels).
      return segment === words.at(-1) || !read;
    });
    // The evidence names the action: the last verb (/sync/copy reports copy, not the area sync).
    const verb = verbs.at(-1)?.text;
    return verb === undefined
      ? []
      : [{ message: `"${verb}" in ${path} is a verb; paths name resources`, path: ['paths', path] }];
  });

const casing: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape }) => {
    // A fragment in a path key (`/#X-Amz-Target=WorkMail.CreateUser`, one key per operation of an
    // RPC API) is never sent as a path: only the segments before it are judged.
    const judged = path.includes('#') ? parsePath(path.slice(0, path.indexOf('#'))) : shape;
    const bad = staticSegments(judged).find(
      (segment) => !segment.includes('{') && !KEBAB.test(segment.replace(EXTENSION, '')),
    );
    return bad === undefined
      ? []
      : [{ message: `"${bad}" in ${path} is not lower-case kebab-case`, path: ['paths', path] }];
  });

const nesting: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape, item }) => {
    // Levels of the parent/child chain: each collection followed by a member id, plus a collection
    // at the end. Namespaces (/analytics/libraries), filter or action sub-paths are not levels;
    // their own rules judge them.
    const { segments } = shape;
    // A namespace with a number in its name (/Destiny2/{membershipType}) and a period (/events/{year})
    // are no levels either.
    const parents = segments.filter((segment, index) => {
      const before = segments[index - 1];
      return (
        segment.param &&
        before?.param === false &&
        !NUMBERED_NAME.test(before.text) &&
        // A period followed by another key (`/details/{year}/{checkDate}`) is part of a member's key.
        !(PERIOD_PARAMETER.test(segment.text) && segments[index + 1]?.param !== true)
      );
    });
    const last = segments.at(-1);
    const leaf =
      last !== undefined && !last.param && !isSearchAction(shape) && isCollectionLeaf(context, path, item);
    const collections = parents.length + (leaf ? 1 : 0);
    return collections <= 2
      ? []
      : [{ message: `${path} nests ${collections} collections (at most 2)`, path: ['paths', path] }];
  });

const noExtensions: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape }) => {
    const bad = shape.segments.find((segment) => EXTENSION.test(segment.text));
    return bad === undefined
      ? []
      : [{ message: `"${bad.text}" in ${path} carries a file extension`, path: ['paths', path] }];
  });

const noFilterSubpaths: Check = (context) =>
  resourcePaths(context).flatMap(({ path, shape, item }) => {
    const structure = structureOf(context.document);
    const bad = shape.segments.find((segment, index) => {
      const before = shape.segments[index - 1];
      if (segment.param || before === undefined || before.param) return false;
      const text = segment.text.toLowerCase();
      if (text === 'search' && index === shape.segments.length - 1 && onlyPostMethods(item)) return false;
      // A segment with members of its own (/store/order/{orderId}) is a resource, whatever the word.
      const prefix = prefixOf(path, index);
      if (structure.withMembers.has(prefix)) return false;
      // A filter selects from a collection: after a namespace or a singleton (rclone's
      // /options/local, the options set locally) the word names a lookup.
      const parent = prefixOf(path, index - 1);
      const parentIsCollection =
        structure.collections.has(parent) ||
        structure.withMembers.has(parent) ||
        isCollection(context, parent);
      if (FILTER_PHRASE.test(text)) return true;
      if (!parentIsCollection) return false;
      if (STATE_WORDS.has(text)) return true;
      // A field or a state of the parent collection's items: /todos/completed with `completed: boolean`.
      const name = normalizeName(segment.text);
      return (
        structure.fields.get(parent)?.has(name) === true || structure.states.get(parent)?.has(name) === true
      );
    });
    return bad === undefined
      ? []
      : [
          {
            message: `"${bad.text}" in ${path} filters, sorts or searches with a sub-path; use query parameters`,
            path: ['paths', path],
          },
        ];
  });

/**
 * The segments of the path every server URL shares (`/signalk/v2/api/notifications` → `signalk`,
 * `v2`, `api`, `notifications`; a `/v1` or `/api/v1` prefix left out), which stand before each path:
 * an API whose server URL ends in the collection writes its paths from the member on (`/{id}/acknowledge`).
 */
function serverSegments(document: unknown): PathShape['segments'] {
  const servers = isObject(document) && Array.isArray(document['servers']) ? document['servers'] : [];
  const bases = new Set(
    servers.map((server) => {
      const url = isObject(server) && typeof server['url'] === 'string' ? server['url'] : '/';
      return url.replace(/^[^/]*\/\/[^/]*/, '').replace(/[?#].*$/, '');
    }),
  );
  const [base] = bases;
  return bases.size === 1 && base !== undefined ? parsePath(base).segments : [];
}

/** The last segment of the server URL's path when it names a collection (a plural noun: `autopilots`). */
function serverCollection(document: unknown): PathShape['segments'][number] | undefined {
  const last = serverSegments(document).at(-1);
  const noun = last === undefined || last.param ? undefined : headNoun(last.text);
  return noun !== undefined && isPlural(noun) ? last : undefined;
}

/**
 * Whether a segment that mixes text and a parameter carries an identifier. A format parameter written
 * as an extension (`records.{format}`) chooses a representation; a query string written into the path
 * key (`/current?lat={lat}&lon={lon}`) carries query parameters, and addresses a member only when one
 * of them is an id (`?city_id={city_id}`, or a parameter described as an ID).
 */
function mixesIdentifier(context: Context, path: string, item: JsonObject, text: string): boolean {
  if (/^[^{}]*\.\{(format|ext|extension)\}$/i.test(text)) return false;
  // A page number, a format, a search text, a period or a letter joined to text
  // (`page-{pageno}.atom`, `profiles{mediaTypeExtension}`, `{q}.atom`, `{dd}.atom`) addresses no member.
  const inSegment = [...text.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!);
  if (inSegment.length > 0 && inSegment.every((name) => NOT_AN_ID.test(name))) return false;
  const query = text.indexOf('?');
  if (query < 0) return true;
  const names = [...text.slice(query).matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!);
  const declared = operationsOf(context.document)
    .filter((op) => op.path === path && op.pathItem === item)
    .flatMap((op) => parametersOf(context.document, op));
  return names.some(
    (name) =>
      /(^|[_-])id$|[a-z]Id$/.test(name) ||
      declared.some((p) => p.name === name && /\b(ID|identifier)\b/.test(p.description ?? '')),
  );
}

/** Parameter names that carry no identifier: pages, formats, search texts, periods, letters. */
const NOT_AN_ID = new RegExp(
  `^(${PAGE_NUMBER_NAMES}|${PERIOD_NAMES}|yyyy|yy|mm|dd|format|ext|extension|\\w*(Extension|Format)|q|query|term|search|keyword|letter|\\w+[_-]letter)$`,
  'i',
);

const identifiers: Check = (context) => {
  const found: RuleViolation[] = [];
  const served = serverCollection(context.document);
  for (const { path, shape, item } of resourcePaths(context)) {
    const partial = shape.segments.find(
      (segment) =>
        !segment.param && /[{}]/.test(segment.text) && mixesIdentifier(context, path, item, segment.text),
    );
    const orphan = shape.segments.find((segment, index) => {
      const before = index === 0 && shape.version === undefined ? served : shape.segments[index - 1];
      // A version parameter first (`/{version}`) is the API's version, not an orphan id.
      if (index === 0 && VERSION_PARAMETER.test(segment.text)) return false;
      return segment.param && (before === undefined || before.param);
    });
    const memberMethod = ['put', 'patch', 'delete'].find((method) => isObject(item[method]));
    if (partial !== undefined)
      found.push({
        message: `"${partial.text}" in ${path} mixes an identifier with text`,
        path: ['paths', path],
      });
    else if (orphan !== undefined)
      found.push({
        message: `${orphan.text} in ${path} does not follow a collection`,
        path: ['paths', path],
      });
    else if (memberMethod !== undefined && isCollection(context, path))
      found.push({
        message: `${memberMethod.toUpperCase()} ${path} targets a collection, not a member /{id}`,
        path: ['paths', path, memberMethod],
      });
  }
  return found;
};

// ---------------------------------------------------------------------------------------------
// Operation rules.

/** First words of an operation's name or summary that say it reads: `getAvatarsDetailsByPost`, "Query users". */
const READ_NAME =
  /^(get|query|search|list|lookup|look up|fetch|find|retrieve|read|batch get|batch-get|batchget)\b/i;

/**
 * A POST that reads rather than creates: it documents no 201, answers 200 with a body, and its
 * operationId (or, without one, its summary) begins with a read verb (Catalyst's `POST /lambdas/profiles`,
 * `getAvatarsDetailsByPost`, returns the profiles of the ids in the body).
 */
function isReadByPost(context: Context, op: OperationRef): boolean {
  const responses = responsesOf(context, op);
  if (responses.some(([status]) => status === '201')) return false;
  const ok = responses.find(([status]) => status === '200')?.[1];
  if (ok === undefined || !isObject(deref(context.document, ok['content']))) return false;
  // The operationId names the operation; the summary is prose ("Get Shipping Rates" for
  // ShipEngine's calculate_rates, which stores the rates it returns) and is read only without one.
  return READ_NAME.test(operationName(op));
}

/** An operation's name as words: its operationId (`UpdateDefaults` → "update defaults"), else its summary. */
function operationName(op: OperationRef): string {
  const id = op.operation['operationId'];
  const summary = op.operation['summary'];
  return typeof id === 'string'
    ? segmentWords(id).join(' ')
    : typeof summary === 'string'
      ? summary.trim()
      : '';
}

/** First words of an operation's name that say it changes what exists: `UpdateDefaults`, "Set preferences". */
const UPDATE_NAME = /^(update|set|replace|edit|modify|save|change|upsert)\b/i;

/** Names of a list of existing items' ids in a request body: `ids`, `listing_ids`, `memberIds`. */
const ID_ARRAY = /^(\w+[_-])?ids$|^\w+Ids$/;

/** The properties of an operation's request body schema (its first media type), when it has any. */
function bodyProperties(context: Context, op: OperationRef): JsonObject | undefined {
  const body = deref(context.document, op.operation['requestBody']);
  const content = isObject(body) ? deref(context.document, body['content']) : undefined;
  const media = isObject(content) ? Object.values(content).find(isObject) : undefined;
  const schema = isObject(media) ? deref(context.document, media['schema']) : undefined;
  const properties = isObject(schema) ? deref(context.document, schema['properties']) : undefined;
  return isObject(properties) ? properties : undefined;
}

/**
 * Whether a request body only names existing items: an object whose members are all arrays of
 * strings or numbers named as ids (`{ listing_ids: [...] }`).
 */
function namesExistingItems(context: Context, op: OperationRef): boolean {
  const properties = bodyProperties(context, op);
  if (properties === undefined) return false;
  const scalarArray = (raw: unknown): boolean => {
    const array = deref(context.document, raw);
    if (!isObject(array) || array['type'] !== 'array') return false;
    const items = deref(context.document, array['items']);
    return isObject(items) && ['string', 'integer', 'number'].includes(String(items['type']));
  };
  const entries = Object.entries(properties);
  return entries.length > 0 && entries.every(([name, raw]) => ID_ARRAY.test(name) && scalarArray(raw));
}

/** A single id of another resource in a body: `target_user_id`, `tweet_id`, `listId`. */
const SINGLE_ID = /^(\w+[_-])?id$|^\w+Id$/;

/**
 * Whether a POST links one existing item rather than creating one: its body holds only the id of another
 * resource (Twitter's `POST /2/users/{id}/following` with `{target_user_id}`) and its answer carries no
 * id of a new member (`{data: {following: true}}`).
 */
function linksOneItem(context: Context, op: OperationRef): boolean {
  const properties = bodyProperties(context, op);
  if (properties === undefined) return false;
  const names = Object.keys(properties);
  if (names.length !== 1 || !SINGLE_ID.test(names[0]!)) return false;
  const answer = successSchema(context.document, op.operation);
  return answer === undefined || !carriesId(context, answer, 0);
}

/** Whether a schema (or its `data` member) has an `id`. */
function carriesId(context: Context, schema: JsonObject, depth: number): boolean {
  const properties = deref(context.document, schema['properties']);
  if (!isObject(properties) || depth > 2) return false;
  if ('id' in properties) return true;
  const data = deref(context.document, properties['data']);
  return isObject(data) && carriesId(context, data, depth + 1);
}

/**
 * Whether a POST creates a member. Not when it documents no 201 and its operationId (or, without one,
 * its summary) reads (see {@link isReadByPost}) or updates (`UpdateDefaults`); nor when it adds a link
 * (a JSON:API `relationships` path, a body of existing items' ids: `POST /sets/itemlists/{id}/ids`);
 * nor when a required `action` parameter or body member chooses what the call does (seven.io's
 * `POST /contacts?action=write|del`).
 */
function createsByPost(context: Context, op: OperationRef): boolean {
  if (isReadByPost(context, op)) return false;
  // A link has no URL of its own, whatever status it answers.
  const { segments } = parsePath(op.path);
  if (segments.some((segment) => segment.text === 'relationships')) return false;
  const last = segments.at(-1);
  if (last !== undefined && !last.param && ID_ARRAY.test(last.text)) return false;
  if (namesExistingItems(context, op)) return false;
  if (responsesOf(context, op).some(([status]) => status === '201')) return true;
  if (UPDATE_NAME.test(operationName(op))) return false;
  if (linksOneItem(context, op)) return false;
  const action = (p: ParameterInfo): boolean => ['action', 'op'].includes(p.name) && p.required === true;
  return !parametersOf(context.document, op).some(action);
}

const post201: Check = (context) =>
  resourceOperations(context).flatMap((op) => {
    if (op.method !== 'post' || !isCollection(context, op.path)) return [];
    if (!createsByPost(context, op)) return [];
    const created = responsesOf(context, op).find(([status]) => status === '201')?.[1];
    const where = ['paths', op.path, 'post', 'responses'];
    if (created === undefined) return [{ message: `POST ${op.path} does not document 201`, path: where }];
    return hasHeader(context, created, 'Location')
      ? []
      : [{ message: `POST ${op.path} 201 has no Location header`, path: [...where, '201'] }];
  });

const delete204: Check = (context) =>
  resourceOperations(context).flatMap((op) => {
    if (op.method !== 'delete') return [];
    const success = responsesOf(context, op)
      .map(([status]) => status)
      .filter((status) => /^2/.test(status));
    return success.length === 1 && success[0] === '204'
      ? []
      : [
          {
            message: `DELETE ${op.path} documents ${success.length === 0 ? 'no 2xx' : success.join(', ')} instead of 204`,
            path: ['paths', op.path, 'delete', 'responses'],
          },
        ];
  });

function schemaHasErrorFields(context: Context, raw: unknown, depth = 0): boolean {
  const schema = deref(context.document, raw);
  if (!isObject(schema) || depth > 10) return false;
  const properties = deref(context.document, schema['properties']);
  if (isObject(properties) && 'error_code' in properties && 'message' in properties) return true;
  const allOf = schema['allOf'];
  if (Array.isArray(allOf)) {
    const names = new Set<string>();
    for (const part of allOf) {
      const resolved = deref(context.document, part);
      const props = isObject(resolved) ? deref(context.document, resolved['properties']) : undefined;
      if (isObject(props)) for (const name of Object.keys(props)) names.add(name);
    }
    if (names.has('error_code') && names.has('message')) return true;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length > 0)
      return list.every((part) => schemaHasErrorFields(context, part, depth + 1));
  }
  return false;
}

const errorResponses: Check = (context) =>
  resourceOperations(context).flatMap((op) => {
    const responses = responsesOf(context, op);
    const problems: string[] = [];
    const errors = responses.filter(([status]) => /^[45]/.test(status) || status === 'default');
    const has = (digit: string): boolean =>
      errors.some(([status]) => status.startsWith(digit) || status === 'default');
    if (!has('4')) problems.push('no 4xx response');
    if (!has('5')) problems.push('no 5xx response');
    for (const [status, response] of errors) {
      const content = deref(context.document, response['content']);
      const media = isObject(content) ? Object.values(content) : [];
      const ok =
        media.length > 0 &&
        media.every((entry) => isObject(entry) && schemaHasErrorFields(context, entry['schema']));
      if (!ok) problems.push(`${status} lacks a schema with error_code and message`);
    }
    return problems.length === 0
      ? []
      : [
          {
            message: `${op.method.toUpperCase()} ${op.path}: ${problems.join('; ')}`,
            path: ['paths', op.path, op.method, 'responses'],
          },
        ];
  });

/** A required list of ids (`ids[]`, `ids`, `product_ids`): the answer has one item per id asked. */
const ID_LIST = /^(\w+[_-])?ids(\[\])?$|^\w+Ids(\[\])?$/;
/** One id parameter that takes several values (`id[]=1&id=2`, Shutterstock's `id`). */
const ID_ARRAY_PARAMETER = /^(\w+[_-])?id(\[\])?$|^\w+Id(\[\])?$/;
/** A numeric top-n (`top_n`, `topK`): the answer has at most n items. */
const TOP_N = /^top[_-]?[nk]$/i;
/** A window in days (`history_days`) or a start and a step (`from` with `resolution`): an aggregate over a requested range. */
const WINDOW_DAYS = /(^|[_-])(days|hours)$/i;
const RANGE_START = /^(from|start|since|start[_-]?(time|date))$/i;
const RANGE_STEP = /^(resolution|interval|granularity|step|bucket[_-]?size)$/i;
const RANGE_END = /^(to|end|until|end[_-]?(time|date))$/i;
/** A path segment naming the step of a time series (`/history/daily`, `/stats/hourly`). */
const STEP_SEGMENT = /^(sub)?(minutely|hourly|daily|weekly|monthly|yearly)$/i;

/**
 * Whether the request bounds the list a GET answers: the ids it names (a required id list), a
 * numeric top-n, or a time range aggregated at a requested step or measured in days
 * (docs/conventions.md 4.4 asks a page bound of lists whose length the server decides).
 */
function boundedByRequest(parameters: readonly ParameterInfo[], path: string): boolean {
  const numeric = (p: ParameterInfo): boolean => ['integer', 'number'].includes(String(p.schema?.['type']));
  const type = (p: ParameterInfo): string => String(p.schema?.['type']);
  const required = (pattern: RegExp): boolean =>
    parameters.some((p) => pattern.test(p.name) && p.required === true);
  const stepInPath = parsePath(path).segments.some(
    (segment) => !segment.param && STEP_SEGMENT.test(segment.text),
  );
  return (
    // A required id list, as an array or a comma-separated string (Spotify's `ids`).
    parameters.some(
      (p) => ID_LIST.test(p.name) && p.required === true && ['array', 'string'].includes(type(p)),
    ) ||
    parameters.some((p) => ID_ARRAY_PARAMETER.test(p.name) && p.required === true && type(p) === 'array') ||
    parameters.some((p) => TOP_N.test(p.name) && numeric(p)) ||
    parameters.some((p) => WINDOW_DAYS.test(p.name) && numeric(p)) ||
    (parameters.some((p) => RANGE_START.test(p.name)) && parameters.some((p) => RANGE_STEP.test(p.name))) ||
    // A required range read at the step the path names (`/history/daily?start_date&end_date`).
    (stepInPath && required(RANGE_START) && required(RANGE_END))
  );
}

/**
 * Whether a GET answers a list of values the document enumerates (an array whose items have an
 * `enum`, such as the supported alias types): the API fixes its length, there is nothing to page.
 */
function enumList(document: unknown, operation: JsonObject): boolean {
  const schema = successSchema(document, operation);
  const items = schema?.['type'] === 'array' ? deref(document, schema['items']) : undefined;
  return isObject(items) && Array.isArray(items['enum']);
}

/**
 * A collection whose GET must page: a collection (see {@link isCollection}) that is not a list the
 * API fixes (see {@link isVocabulary}): the kinds or options an API supports have a length it fixes.
 */
function isPagedCollection(context: Context, path: string): boolean {
  return isCollection(context, path) && !isVocabulary(context, path) && growsWithUse(context, path);
}

/**
 * Whether the document shows a collection that grows with use, so that its list needs paging: the
 * GET answers a list (an array, or an object wrapping one: see `answersList`) and the API adds or
 * manages members (a POST on the collection, or PUT, PATCH or DELETE on `<path>/{id}`). A list the
 * API only reads out (the sources of a connector, the modes of a journey planner) or a GET whose
 * answer is one object or undeclared gives no evidence that it grows, and is not judged.
 */
function growsWithUse(context: Context, path: string): boolean {
  const item = itemAt(context, path);
  const get = item?.['get'];
  const last = parsePath(path).segments.at(-1);
  if (item === undefined || !isObject(get) || last === undefined || last.param) return false;
  if (!answersList(context.document, get, last.text)) return false;
  if (isObject(item['post'])) return true;
  const base = trimSlash(path);
  return pathsOf(context.document).some(([raw, member]) => {
    const rest = trimSlash(raw).slice(base.length);
    return (
      trimSlash(raw).startsWith(`${base}/`) &&
      /^\/\{[^{}/]+\}$/.test(rest) &&
      ['put', 'patch', 'delete'].some((method) => isObject(member[method]))
    );
  });
}

/**
 * Head nouns of a list of the kinds or options an API supports: `/event_types`, `/supportedCountries`,
 * `/citations/styles`, `/anonymization/options`.
 */
const VOCABULARY_NOUNS: ReadonlySet<string> = new Set([
  'types',
  'kinds',
  'options',
  'countries',
  'currencies',
  'languages',
  'locales',
  'timezones',
  'licenses',
  'licences',
  'styles',
  'formats',
  'addons',
  'genres',
  'moods',
  'instruments',
  'categories',
  'plans',
  'markets',
  'priorities',
  'statuses',
  'regions',
  'datacenters',
]);

/**
 * A list the API fixes, not a collection that grows: nothing in the document writes to it or to its
 * members (no POST, PUT, PATCH or DELETE on the list or any path under it; its members may be read,
 * as Presalytics' `GET /Shared/ColorTypes/{id}`), the GET takes no filter or paging parameter (a
 * language or locale only chooses the words), and its name is a kind or an option the API supports
 * (`/event_types`, `/v2/currencies`, OSF's `/licenses/`, Shutterstock's `/v2/audio/genres`).
 */
function isVocabulary(context: Context, path: string): boolean {
  const item = deref(context.document, pathItem(context, path));
  if (!isObject(item) || isWrittenUnder(context, path)) return false;
  const get = item['get'];
  if (!isObject(get)) return false;
  const op: OperationRef = { path, method: 'get', operation: get, pathItem: item };
  const chooses = (p: ParameterInfo): boolean => p.in === 'query' && LANGUAGE_PARAMETER.test(p.name);
  if (parametersOf(context.document, op).some((p) => (p.in === 'query' && !chooses(p)) || p.in === 'path'))
    return false;
  const last = parsePath(path).segments.at(-1);
  const noun = last === undefined || last.param ? undefined : headNoun(last.text);
  return noun !== undefined && VOCABULARY_NOUNS.has(noun);
}

/** A query parameter that chooses the language of the answer, not which items it holds. */
const LANGUAGE_PARAMETER = /^(lang|language|locale|accept[-_]?language)$/i;

/** Whether the document writes (POST, PUT, PATCH, DELETE) to a path or to any path under it. */
function isWrittenUnder(context: Context, path: string): boolean {
  const base = trimSlash(path);
  return pathsOf(context.document).some(([raw, item]) => {
    const other = trimSlash(raw);
    if (other !== base && !other.startsWith(`${base}/`)) return false;
    return ['post', 'put', 'patch', 'delete'].some((method) => isObject(item[method]));
  });
}

/** The members of a query parameter whose value is a JSON object (Stream's `payload={"limit":10}`). */
function membersOf(context: Context, parameter: ParameterInfo): ParameterInfo[] {
  const properties =
    parameter.schema === undefined ? undefined : deref(context.document, parameter.schema['properties']);
  if (!isObject(properties)) return [];
  return Object.entries(properties).flatMap(([name, raw]) => {
    const schema = deref(context.document, raw);
    const description =
      isObject(schema) && typeof schema['description'] === 'string' ? schema['description'] : undefined;
    return isObject(schema)
      ? [
          {
            name,
            in: parameter.in,
            path: parameter.path,
            schema,
            ...(description === undefined ? {} : { description }),
          },
        ]
      : [];
  });
}

const collectionPagination: Check = (context) =>
  resourceOperations(context).flatMap((op) => {
    if (op.method !== 'get' || !isPagedCollection(context, op.path)) return [];
    const all = parametersOf(context.document, op);
    // Paging may travel in request headers (`X-Next-Token`, `X-Limit`): read them by the same names;
    // and inside one JSON-encoded query parameter (Stream's `payload`): read its members too.
    const parameters = all
      .filter((p) => p.in === 'query' || p.in === 'header')
      .map((p) => (p.in === 'header' ? { ...p, name: p.name.replace(/^x-/i, '').replace(/-/g, '_') } : p))
      .flatMap((p) => [p, ...membersOf(context, p)]);
    const query = parameters.map((p) => p.name);
    // 4.4 rule 2 asks for a bounded page; the names of 4.4's table are one way to say it, the
    // common aliases (per_page, page_size, page[size], page_token, after) another, and a numeric
    // `count` or `size` (the number of items on a page) a third: all bound the page.
    const numeric = (p: ParameterInfo): boolean => ['integer', 'number'].includes(String(p.schema?.['type']));
    const bounded =
      paginationStyle(query) !== undefined ||
      query.some((name) => PAGE_ALIASES.test(name)) ||
      parameters.some((p) => NUMERIC_PAGE_SIZES.test(p.name) && numeric(p)) ||
      // An `offset` that is a string is a page token the answer hands back (Asana's), not a count.
      parameters.some((p) => p.name === 'offset' && p.schema?.['type'] === 'string') ||
      // A number the document says pages (`p`: "the result page number"; `length`: "results per page"),
      // or says how many results come back (a page size, or a top-n the request sets).
      parameters.some(
        (p) =>
          numeric(p) &&
          (PAGE_DESCRIPTION.test(p.description ?? '') || RESULT_COUNT_DESCRIPTION.test(p.description ?? '')),
      ) ||
      // A page with its size under another name (Orbit's `page` with `items`).
      (query.includes('page') && query.includes('items')) ||
      // A page number in the path (The Blue Alliance's `/teams/{page_num}/keys`).
      parsePath(op.path).segments.some(
        (segment) => segment.param && PAGE_PATH_PARAMETER.test(segment.text.slice(1, -1)),
      ) ||
      boundedByRequest(parameters, op.path) ||
      enumList(context.document, op.operation);
    return bounded
      ? []
      : [
          {
            message: `GET ${op.path} declares no limit/offset, page/size or cursor`,
            path: ['paths', op.path, 'get'],
          },
        ];
  });

const securityHeaders: Check = (context) => {
  const found: RuleViolation[] = [];
  const document = context.document;
  const components = isObject(document) ? deref(document, document['components']) : undefined;
  const schemes = isObject(components) ? deref(document, components['securitySchemes']) : undefined;
  if (isObject(schemes)) {
    for (const [name, raw] of Object.entries(schemes)) {
      const scheme = deref(document, raw);
      if (isObject(scheme) && scheme['type'] === 'apiKey' && scheme['in'] === 'query')
        found.push({
          message: `security scheme "${name}" sends its key in the query string`,
          path: ['components', 'securitySchemes', name, 'in'],
        });
    }
  }
  for (const op of operationsOf(document)) {
    for (const parameter of parametersOf(document, op)) {
      const name = parameter.name.toLowerCase();
      const credential =
        CREDENTIAL_QUERY.has(name) ||
        (AMBIGUOUS_CREDENTIAL_QUERY.has(name) && CREDENTIAL_WORDS.test(parameter.description ?? ''));
      if (parameter.in === 'query' && credential)
        found.push({
          message: `${op.method.toUpperCase()} ${op.path} takes the credential "${parameter.name}" in the query string`,
          path: parameter.path,
        });
    }
  }
  return found;
};

/** Request headers that name a media type, and so can carry its version. */
const MEDIA_HEADERS: ReadonlySet<string> = new Set(['content-type', 'accept']);
/** A description saying the header carries the API's version ("indicates the specific version of the API"). */
const VERSION_WORDS = /\bversion (of|of the) (the )?API\b|\bAPI version\b/i;

/**
 * Whether a `Content-Type` or `Accept` header parameter versions the API through the media type:
 * its schema's enum, default, example or pattern, or its own examples, name a versioned media
 * type (`application/vnd.interoperability.parties+json;version=1.1`, `application/vnd.acme.v2+json`),
 * or its description says it carries the API's version (Mojaloop's FSPIOP headers).
 */
function carriesMediaVersion(parameter: ParameterInfo): boolean {
  const schema = parameter.schema;
  const values: unknown[] = [...(parameter.examples ?? [])];
  if (schema !== undefined) {
    values.push(schema['default'], schema['example'], schema['pattern']);
    if (Array.isArray(schema['enum'])) values.push(...schema['enum']);
    if (Array.isArray(schema['examples'])) values.push(...schema['examples']);
  }
  const versioned = values.some(
    (value) =>
      typeof value === 'string' &&
      value.split(',').some((type) => VENDOR_MEDIA.test(type.trim()) || /;\s*version=/i.test(type)),
  );
  return versioned || VERSION_WORDS.test(parameter.description ?? '');
}

/**
 * A server's URL with each server variable replaced by its default
 * (`https://restapi.kumpeapps.com/{version}` with `version` defaulting to `v5` reads `.../v5`).
 */
function serverUrl(server: unknown): string | undefined {
  if (!isObject(server) || typeof server['url'] !== 'string') return undefined;
  const variables = isObject(server['variables']) ? server['variables'] : {};
  return server['url'].replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable['default'] === 'string' ? variable['default'] : whole;
  });
}

/**
 * A version header named after the product (`carbone-version`, `stripe-version`): a required
 * header whose name is one word followed by `-version`, which every request must send.
 */
function productVersionHeader(parameter: ParameterInfo): boolean {
  if (/^(x-)?[a-z0-9]+-version$/i.test(parameter.name) && VERSION_WORDS.test(parameter.description ?? ''))
    return true;
  return parameter.required === true && /^[a-z0-9]+-version$/i.test(parameter.name);
}

/** A version segment (`v2`, `v2.1`). */
const VERSION_WORD = /^v\d+(\.\d+)?$/i;
const VERSION_PARAMETER = /^\{(api[_-]?)?version\}$/i;

/**
 * The version a path carries: its prefix (`/v2/...`, `/api/v2/...`, `/2.0/...`), or a version after
 * a namespace of one or two segments before any parameter (`/signalk/v2/api/...`).
 *
 * @example
 * ```ts
 * pathVersion(parsePath('/signalk/v1/apps/list')); // 'v1'
 * ```
 */
function pathVersion(shape: PathShape): string | undefined {
  if (shape.version !== undefined) return shape.version;
  const lead = shape.segments.slice(0, 3);
  // A version parameter first (`/{version}/rides`) versions the path as a version word does; alone
  // (`/{version}`) it is the version's entry point.
  if (lead[0]?.param === true && lead.length > 1 && VERSION_PARAMETER.test(lead[0].text)) return lead[0].text;
  // A bare number first (Twitter's `/2/tweets`) is the API's version.
  if (lead[0] !== undefined && !lead[0].param && /^\d{1,2}$/.test(lead[0].text)) return lead[0].text;
  // A version after a namespace or a tenant (`/api/v2`, chain49's `/{blockchain}/v2/`).
  const index = lead.findIndex((segment) => VERSION_WORD.test(segment.text));
  if (index > 0) return lead[index]!.text;
  // A version after `api`, deeper in (Seldon's `/seldon/{namespace}/{deployment}/api/v1.0/`).
  const deep = shape.segments.slice(0, 6);
  const after = deep.findIndex(
    (segment, i) => VERSION_WORD.test(segment.text) && deep[i - 1]?.text.toLowerCase() === 'api',
  );
  return after > 0 ? deep[after]!.text : undefined;
}

const versionConsistent: Check = (context) => {
  const document = context.document;
  const strategies = new Map<string, JsonPath>();
  const servers = isObject(document) && Array.isArray(document['servers']) ? document['servers'] : [];
  const serverVersioned = servers.some((server) => {
    const url = serverUrl(server);
    return url !== undefined && SERVER_VERSION.test(url);
  });
  if (serverVersioned) strategies.set('path', ['servers']);
  const paths = resourcePaths(context);
  const versioned = paths.filter(({ shape }) => pathVersion(shape) !== undefined);
  if (versioned[0]) strategies.set('path', ['paths', versioned[0].path]);
  const operations = operationsOf(document);
  // A `version` query parameter on a few operations usually selects a version of the resource (a
  // file's revision), not of the API: it counts as the API's strategy when it says "API" or is on
  // at least half of the operations.
  const queryVersions = operations.flatMap((op) =>
    parametersOf(document, op).filter((p) => p.in === 'query' && VERSION_QUERY.has(p.name.toLowerCase())),
  );
  const queryStrategy =
    queryVersions.length * 2 >= operations.length ||
    queryVersions.some((p) => /\bapi\b/i.test(p.description ?? ''));
  for (const op of operations) {
    for (const parameter of parametersOf(document, op)) {
      const name = parameter.name.toLowerCase();
      if (parameter.in === 'query' && VERSION_QUERY.has(name) && queryStrategy)
        strategies.set('query', parameter.path);
      if (parameter.in === 'header' && (VERSION_HEADER.has(name) || productVersionHeader(parameter)))
        strategies.set('header', parameter.path);
      if (parameter.in === 'header' && MEDIA_HEADERS.has(name) && carriesMediaVersion(parameter))
        strategies.set('media type', parameter.path);
    }
    for (const [status, response] of responsesOf(context, op)) {
      const content = deref(document, response['content']);
      const type = isObject(content) ? Object.keys(content).find((key) => VENDOR_MEDIA.test(key)) : undefined;
      if (type !== undefined)
        strategies.set('media type', ['paths', op.path, op.method, 'responses', status, 'content', type]);
    }
  }
  if (strategies.size === 0 && paths.length > 0)
    return [
      { message: 'no versioning strategy is used (path, query, header or media type)', path: ['paths'] },
    ];
  if (strategies.size > 1) {
    const [, second] = [...strategies.entries()];
    return [
      {
        message: `several versioning strategies are mixed: ${[...strategies.keys()].join(', ')}`,
        path: second![1],
      },
    ];
  }
  if (strategies.has('path') && !serverVersioned) {
    // The root `/` is where a client finds the versions (an API index); it cannot carry one itself.
    const unversioned = paths.find(
      ({ shape }) => pathVersion(shape) === undefined && shape.segments.length > 0,
    );
    if (unversioned)
      return [
        {
          message: `${unversioned.path} has no version prefix while other paths do`,
          path: ['paths', unversioned.path],
        },
      ];
  }
  return [];
};

function deprecationCheck(header: string): Check {
  return (context) =>
    operationsOf(context.document).flatMap((op) => {
      if (op.operation['deprecated'] !== true) return [];
      const missing = responsesOf(context, op).filter(
        ([status, response]) => /^2/.test(status) && !hasHeader(context, response, header),
      );
      return missing.map(([status]) => ({
        message: `deprecated ${op.method.toUpperCase()} ${op.path} ${status} does not document the ${header} header`,
        path: ['paths', op.path, op.method, 'responses', status],
      }));
    });
}

const CHECKS: Record<string, Check> = {
  'plumbline-path-plural-nouns': pluralNouns,
  'plumbline-path-no-verbs': noVerbs,
  'plumbline-path-casing': casing,
  'plumbline-path-nesting': nesting,
  'plumbline-path-no-extensions': noExtensions,
  'plumbline-path-no-filter-subpaths': noFilterSubpaths,
  'plumbline-path-identifiers': identifiers,
  'plumbline-post-201-location': post201,
  'plumbline-delete-204': delete204,
  'plumbline-error-responses': errorResponses,
  'plumbline-collection-pagination': collectionPagination,
  'plumbline-security-headers-only': securityHeaders,
  'plumbline-version-consistent': versionConsistent,
  'plumbline-deprecation-header': deprecationCheck('Deprecation'),
  'plumbline-sunset-header': deprecationCheck('Sunset'),
};

const noResourcePaths = (context: Context): string | undefined =>
  resourcePaths(context).length === 0 ? 'the document has no resource paths' : undefined;

/** For each rule, why a document gives it nothing to judge (`undefined`: something to judge). */
const NOTHING_TO_JUDGE: Record<string, (context: Context) => string | undefined> = {
  'plumbline-path-plural-nouns': noResourcePaths,
  'plumbline-path-no-verbs': noResourcePaths,
  'plumbline-path-casing': noResourcePaths,
  'plumbline-path-nesting': noResourcePaths,
  'plumbline-path-no-extensions': noResourcePaths,
  'plumbline-path-no-filter-subpaths': noResourcePaths,
  'plumbline-path-identifiers': noResourcePaths,
  'plumbline-post-201-location': (context) =>
    resourceOperations(context).some((op) => op.method === 'post' && isCollection(context, op.path))
      ? undefined
      : 'no POST to a collection',
  'plumbline-delete-204': (context) =>
    resourceOperations(context).some((op) => op.method === 'delete') ? undefined : 'no DELETE operation',
  'plumbline-error-responses': (context) =>
    resourceOperations(context).length > 0 ? undefined : 'no operation on a resource path',
  'plumbline-collection-pagination': (context) =>
    resourceOperations(context).some((op) => op.method === 'get' && isPagedCollection(context, op.path))
      ? undefined
      : 'no GET on a list the API adds to',
  'plumbline-security-headers-only': (context) => {
    const document = context.document;
    const components = isObject(document) ? deref(document, document['components']) : undefined;
    const schemes = isObject(components) ? deref(document, components['securitySchemes']) : undefined;
    const hasSchemes = isObject(schemes) && Object.keys(schemes).length > 0;
    return hasSchemes || operationsOf(document).length > 0
      ? undefined
      : 'no security scheme and no operation';
  },
  'plumbline-version-consistent': noResourcePaths,
  'plumbline-deprecation-header': (context) =>
    operationsOf(context.document).some((op) => op.operation['deprecated'] === true)
      ? undefined
      : 'no deprecated operation',
  'plumbline-sunset-header': (context) =>
    operationsOf(context.document).some((op) => op.operation['deprecated'] === true)
      ? undefined
      : 'no deprecated operation',
};

/**
 * The rules that have nothing to judge in a document, each with the reason (no POST to a
 * collection, no deprecated operation, ...), plus the rules `options.disable` leaves out. A rule
 * listed here reports "not applicable", never "pass", and does not count towards the score.
 *
 * @example
 * ```ts
 * notApplicableRules({ openapi: '3.1.0', paths: {} })['plumbline-delete-204']; // 'no DELETE operation'
 * ```
 */
export function notApplicableRules(
  document: unknown,
  options: Pick<RulesetOptions, 'ignorePaths' | 'disable'> = {},
): Record<string, string> {
  const context: Context = { document, ignored: [...DEFAULT_IGNORED_PATHS, ...(options.ignorePaths ?? [])] };
  const disabled = new Set(options.disable ?? []);
  const reasons: Record<string, string> = {};
  for (const rule of LINT_RULES) {
    const reason = disabled.has(rule.id)
      ? 'disabled by the ruleset options'
      : NOTHING_TO_JUDGE[rule.id]?.(context);
    if (reason !== undefined) reasons[rule.id] = reason;
  }
  return reasons;
}

/** A rule in Spectral's ruleset format (a subset of `RuleDefinition`). */
export interface SpectralRule {
  readonly description: string;
  readonly message: string;
  readonly severity: 'error' | 'warn';
  readonly given: string;
  readonly documentationUrl?: string;
  /** What Spectral runs for the rule. */
  readonly then: {
    /** The rule function Spectral calls with the document; it returns the violations. */
    readonly function: (input: unknown) => RuleViolation[];
  };
}

/** A Spectral ruleset object (`RulesetDefinition` with rules only). */
export interface SpectralRuleset {
  readonly description: string;
  readonly rules: Readonly<Record<string, SpectralRule>>;
}

/**
 * Builds the ruleset; pass it to `spectral.setRuleset()` or export it from a ruleset file.
 *
 * @example
 * ```ts
 * import { Spectral } from '@stoplight/spectral-core';
 * const spectral = new Spectral();
 * spectral.setRuleset(createRuleset({ ignorePaths: [/^\/internal\//] }));
 * ```
 */
export function createRuleset(options: RulesetOptions = {}): SpectralRuleset {
  const ignored = [...DEFAULT_IGNORED_PATHS, ...(options.ignorePaths ?? [])];
  const disabled = new Set(options.disable ?? []);
  const rules: Record<string, SpectralRule> = {};
  const enabled = LINT_RULES.filter((rule) => CHECKS[rule.id] !== undefined && !disabled.has(rule.id));
  for (const [index, rule] of enabled.entries()) {
    const check = CHECKS[rule.id]!;
    rules[rule.id] = {
      description: `${rule.title} (docs/conventions.md ${rule.section}). Fix: ${rule.fix}`,
      documentationUrl: rule.link,
      message: '{{error}}',
      severity: rule.severity,
      given: '$',
      // biome-ignore lint/suspicious/noThenProperty: Spectral's rule format names this member `then`.
      then: {
        function: (document: unknown) => {
          options.onRule?.(rule.id, index, enabled.length);
          return check({ document, ignored });
        },
      },
    };
  }
  return {
    description:
      'Plumbline conventions (docs/conventions.md, docs/design.md of github.com/plumbline/plumbline)',
    rules,
  };
}

export { DEFAULT_IGNORED_PATHS };
