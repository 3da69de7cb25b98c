/**
 * The words of a path segment, for the vocabulary rules. Two sources:
 *
 * - **Part of speech** comes from the built-in lists below: verbs that name an action in an API
 *   path, and the verbs that are as often nouns (`check`, `upload`). A spelling dictionary cannot
 *   say which words are verbs, and a general one (WordNet) calls almost every noun a verb too
 *   (`project`, `comment`, `tag`), so these lists stay curated and conservative.
 * - **Spelling** comes from `word-list` (274,000 English words, MIT): a word written without
 *   separators (`deletefile`, `listmounts`, `settierfile`) is split into a verb of the list and
 *   dictionary words, but only when the whole is not itself a word (`address`, `settings`,
 *   `processes` stay whole).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Verbs that name an action in an API path (`/create-project`, `/operations/purge`). */
const VERBS: ReadonlySet<string> = new Set([
  'get',
  'list',
  'create',
  'add',
  'insert',
  'update',
  'edit',
  'modify',
  'delete',
  'remove',
  'destroy',
  'set',
  'put',
  'post',
  'fetch',
  'retrieve',
  'find',
  'query',
  'do',
  'make',
  'run',
  'execute',
  'exec',
  'process',
  'send',
  'resend',
  'submit',
  'save',
  'load',
  'reload',
  'upload',
  'download',
  'compute',
  'calculate',
  'generate',
  'validate',
  'check',
  'enable',
  'disable',
  'activate',
  'deactivate',
  'approve',
  'reject',
  'cancel',
  'start',
  'stop',
  'reset',
  'sync',
  'copy',
  'move',
  'register',
  'unregister',
  'login',
  'logout',
  'signin',
  'signout',
  'subscribe',
  'unsubscribe',
  'archive',
  'unarchive',
  'restore',
  'assign',
  'unassign',
  'close',
  'open',
  'sort',
  'compare',
  'promote',
  'clear',
  'verify',
  'rerun',
  'rerequest',
  'retry',
  'merge',
  'transfer',
  'rename',
  'publish',
  'unpublish',
  'attach',
  'detach',
  'purge',
  'unlock',
  'join',
  'duplicate',
  'render',
  'mount',
  'unmount',
  'refresh',
  'revoke',
  'invite',
  'accept',
  'decline',
  'confirm',
  'authorize',
  'authenticate',
  'pause',
  'resume',
  'suspend',
  'unsuspend',
  'unblock',
  'mute',
  'unmute',
  'follow',
  'unfollow',
  'import',
  'export',
  'convert',
  'parse',
  'encode',
  'decode',
  'encrypt',
  'decrypt',
  'expire',
  'forget',
  'dump',
  'quit',
  'cleanup',
  'obscure',
  'mkdir',
  'rmdir',
  'noop',
  'reinvite',
  'reorder',
  'abort',
  'deregister',
  'increment',
  'decrement',
]);

/**
 * Verbs that are as often nouns: as the first word of a phrase ending in a plural noun they qualify
 * it (`check-runs`, `query-results`, `run-logs`), so the segment names a collection, not an action;
 * before one of {@link QUALIFIED_HEADS} they name an attribute (`upload_url`).
 */
const NOUN_VERBS: ReadonlySet<string> = new Set([
  'check',
  'set',
  'query',
  'process',
  'run',
  'copy',
  'move',
  'report',
  'upload',
  'download',
  'export',
  'import',
  'transfer',
]);

/** Nouns that a noun-verb qualifies (`upload-url`, `login-status`): the phrase is a noun, not an action. */
const QUALIFIED_HEADS: ReadonlySet<string> = new Set([
  'url',
  'uri',
  'link',
  'status',
  'settings',
  'config',
  'configuration',
  'policy',
  'history',
  'token',
]);

/**
 * Words that may stand before the verb of an action in a segment (`bulk-delete`, `batch-update`,
 * `auto-merge`): the verb is then the action's, in a later position.
 */
const ACTION_QUALIFIERS: ReadonlySet<string> = new Set(['bulk', 'batch', 'mass', 'auto', 'force']);

/**
 * Verbs that end an action segment after a noun (`stats-reset`, `stats-delete`): verbs that are
 * hardly ever nouns, so `price-list` or `data-set` are not actions.
 */
const FINAL_VERBS: ReadonlySet<string> = new Set([
  'create',
  'delete',
  'remove',
  'reset',
  'update',
  'cancel',
  'enable',
  'disable',
  'activate',
  'deactivate',
  'approve',
  'reject',
  'restore',
  'rename',
  'refresh',
  'revoke',
  'purge',
  'unlock',
  'validate',
  'verify',
  'generate',
  'calculate',
  'execute',
  'submit',
]);

let dictionary: ReadonlySet<string> | undefined;

/**
 * The path of `word-list`'s words.txt, found by resolving the package rather than importing it:
 * `word-list` is ESM-only, and a `require()` of it fails in Jest's module loader and on Node before
 * 20.19, where this package's CommonJS build must still load.
 *
 * Spectral bundles a ruleset (`spectral lint --ruleset .../ruleset.mjs`) and runs the bundle where
 * `import.meta.url` becomes `__filename`, which is not defined there: the package is then found
 * from the working directory, and `word-list` from the package (npm's flat and pnpm's nested
 * layouts alike).
 */
function wordListFile(): string {
  let from: string;
  try {
    from = import.meta.url;
  } catch {
    from = createRequire(join(process.cwd(), 'noop.js')).resolve('@plumbline/conformance');
  }
  return join(dirname(createRequire(from).resolve('word-list')), 'words.txt');
}

/**
 * Whether `word` is an English word (lower case), by `word-list`; read once, on first use.
 *
 * @example
 * ```ts
 * isWord('invoice'); // true
 * isWord('registrierkasse'); // false
 * ```
 */
export function isWord(word: string): boolean {
  dictionary ??= new Set(readFileSync(wordListFile(), 'utf8').split(/\r?\n/));
  return dictionary.has(word);
}

/** `rest` as one to three dictionary words of three letters or more (`tierfile` → tier, file). */
function dictionaryWords(rest: string, depth = 0): string[] | undefined {
  if (rest.length >= 3 && isWord(rest)) return [rest];
  if (depth >= 2) return undefined;
  for (let cut = rest.length - 3; cut >= 3; cut -= 1) {
    const head = rest.slice(0, cut);
    if (!isWord(head)) continue;
    const tail = dictionaryWords(rest.slice(cut), depth + 1);
    if (tail !== undefined) return [head, ...tail];
  }
  return undefined;
}

/**
 * A word written without separators split into a verb and the dictionary words after it
 * (`deletefile` → delete, file; `settierfile` → set, tier, file); any other word as it is.
 */
function split(word: string): string[] {
  if (VERBS.has(word) || word.length < 6 || isWord(word)) return [word];
  for (let cut = Math.min(word.length - 3, 9); cut >= 2; cut -= 1) {
    const verb = word.slice(0, cut);
    if (!VERBS.has(verb)) continue;
    const rest = dictionaryWords(word.slice(cut));
    if (rest !== undefined) return [verb, ...rest];
  }
  return [word];
}

/**
 * The words of a path segment, lower case: split at case changes and separators, the acronym
 * OpenID kept whole, and words written together split by the dictionary.
 *
 * @example
 * ```ts
 * segmentWords('getPluginsForType'); // ['get', 'plugins', 'for', 'type']
 * segmentWords('deletefile'); // ['delete', 'file']
 * ```
 */
export function segmentWords(segment: string): string[] {
  const list = segment
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[-_ .]+/)
    .filter((word) => word !== '');
  const joined = list.join(' ').replace(/\bopen id\b/g, 'openid');
  return joined === '' ? [] : joined.split(' ').flatMap(split);
}

/**
 * Whether `word` is one of `heads` or a dictionary word of three letters or more written together
 * with one (`seenlog` → seen + log, `mempool` → mem + pool), as a compound ending in that noun.
 *
 * @example
 * ```ts
 * endsInNoun('seenlog', new Set(['log'])); // true
 * endsInNoun('blog', new Set(['log'])); // false: "b" is not a word
 * ```
 */
export function endsInNoun(word: string, heads: ReadonlySet<string>): boolean {
  if (heads.has(word)) return true;
  for (const head of heads) {
    const before = word.slice(0, word.length - head.length);
    if (word.endsWith(head) && before.length >= 3 && isWord(before)) return true;
  }
  return false;
}

/**
 * Whether a word ending in `-s` is the plural of a dictionary word ending in a vowel (`wikis` → wiki,
 * `menus` → menu), not a Latin singular (`status`, `analysis`: `statu` and `analysi` are no words).
 *
 * @example
 * ```ts
 * isPluralOfWord('wikis'); // true
 * isPluralOfWord('status'); // false
 * ```
 */
export function isPluralOfWord(word: string): boolean {
  return word.endsWith('s') && word.length > 3 && isWord(word.slice(0, -1));
}

function isPluralWord(word: string): boolean {
  return word.endsWith('s') && !/(ss|us|is)$/.test(word);
}

/**
 * The verb that makes a segment an action, or `undefined` for a noun segment: a verb first
 * (`create-project`, `deletefile`) unless a noun-verb qualifies a plural noun or an attribute
 * (`check-runs`, `upload-url`); a verb after `bulk`/`batch`/`auto` (`bulk-delete`); or a verb
 * that is hardly a noun at the end (`stats-reset`).
 *
 * @example
 * ```ts
 * actionVerb('listmounts'); // 'list'
 * actionVerb('check-runs'); // undefined
 * ```
 */
export function actionVerb(segment: string): string | undefined {
  const list = segmentWords(segment);
  const first = list[0];
  if (first === undefined) return undefined;
  if (VERBS.has(first)) {
    const last = list.at(-1)!;
    const qualifies =
      list.length > 1 && NOUN_VERBS.has(first) && (isPluralWord(last) || QUALIFIED_HEADS.has(last));
    return qualifies ? undefined : first;
  }
  const afterQualifiers = list.findIndex((word) => !ACTION_QUALIFIERS.has(word));
  if (afterQualifiers > 0 && VERBS.has(list[afterQualifiers]!)) return list[afterQualifiers];
  const last = list.at(-1)!;
  return list.length > 1 && FINAL_VERBS.has(last) ? last : undefined;
}

/**
 * Whether a segment is one verb that is as often a noun (`import`, `export`, `check`): whether it
 * names a resource or an action depends on what the document does with the path.
 *
 * @example
 * ```ts
 * isNounVerb('import'); // true
 * ```
 */
export function isNounVerb(segment: string): boolean {
  const list = segmentWords(segment);
  return list.length === 1 && NOUN_VERBS.has(list[0]!);
}
