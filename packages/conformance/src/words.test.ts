import { describe, expect, it } from 'vitest';
import { actionVerb, endsInNoun, isNounVerb, segmentWords } from './words.js';

describe('segmentWords', () => {
  it.each([
    ['getPluginsForType', ['get', 'plugins', 'for', 'type']],
    ['set-gc-percent', ['set', 'gc', 'percent']],
    ['deletefile', ['delete', 'file']],
    ['settierfile', ['set', 'tier', 'file']],
    ['listmounts', ['list', 'mounts']],
    ['unmountall', ['unmount', 'all']],
    // Whole words stay whole, though they start like a verb.
    ['address', ['address']],
    ['settings', ['settings']],
    ['processes', ['processes']],
    // No verb in front: not split.
    ['serviceresources', ['serviceresources']],
    ['openIdConnect', ['openid', 'connect']],
    ['', []],
  ])('%s → %j', (segment, words) => {
    expect(segmentWords(segment)).toEqual(words);
  });
});

describe('actionVerb', () => {
  it.each([
    ['create-project', 'create'],
    ['deletefile', 'delete'],
    ['listremotes', 'list'],
    ['setpath', 'set'],
    ['purge', 'purge'],
    ['unlock', 'unlock'],
    ['bulk-delete', 'delete'],
    ['stats-reset', 'reset'],
    ['force-cancel', 'cancel'],
    // Noun-verbs qualifying a plural noun or an attribute name a thing.
    ['check-runs', undefined],
    ['upload_url', undefined],
    ['set-soft-memory-limit', 'set'],
    // Nouns, and verbs that are nouns at the end of a phrase.
    ['projects', undefined],
    ['price-list', undefined],
    ['data-set', undefined],
    ['openIdConnect', undefined],
  ])('%s → %s', (segment, verb) => {
    expect(actionVerb(segment)).toBe(verb);
  });
});

describe('isNounVerb', () => {
  it.each([
    ['import', true],
    ['check', true],
    ['create', false],
    ['check-runs', false],
  ])('%s → %s', (segment, expected) => {
    expect(isNounVerb(segment)).toBe(expected);
  });
});

describe('endsInNoun', () => {
  const collectives = new Set(['log', 'pool']);
  it.each([
    ['log', true],
    // Dialogporten's seen log and Blockfrost's mempool: a word written together with the noun.
    ['seenlog', true],
    ['mempool', true],
    ['auditlog', true],
    // "b" and "s" are not words of three letters: a blog, a spool are counted one by one.
    ['blog', false],
    ['spool', false],
    ['pools', false],
    ['dialog', false],
  ])('%s → %s', (word, expected) => {
    expect(endsInNoun(word, collectives)).toBe(expected);
  });
});
