import { describe, expect, it } from 'vitest';
import { actionVerb, isNounVerb, segmentWords } from './words.js';

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
