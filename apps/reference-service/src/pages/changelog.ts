/**
 * `GET /docs/changelog`: the API's changelog, written from the same version-change declarations the
 * migrations run (domain/versions.ts), newest version first. JSON by default, Markdown for
 * `Accept: text/markdown`. Framework-neutral: a wiring negotiates with
 * {@link CHANGELOG_NEGOTIATION} and represents {@link CHANGELOG}.
 */
import type { NegotiatorOptions } from '@plumbline/negotiation';
import { type ChangelogEntry, changelog, changelogMarkdown } from '@plumbline/versioning';
import { API_VERSIONS } from '../domain/versions.js';

/** The JSON changelog: every version that has changes or a lifecycle, newest first, each with its declared changes. */
export const CHANGELOG: { readonly data: readonly ChangelogEntry[] } = { data: changelog(API_VERSIONS) };

const MARKDOWN = changelogMarkdown(API_VERSIONS);

/** JSON for programs, Markdown for people (the changes are described in English). */
export const CHANGELOG_NEGOTIATION: NegotiatorOptions = {
  types: ['application/json', 'text/markdown'],
  languages: ['en'],
  serializers: { 'text/markdown': () => MARKDOWN },
};
