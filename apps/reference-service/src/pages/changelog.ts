/**
 * `GET /changelog` (and `/docs/changelog`, the same page): the API's changelog, written from the
 * same version-change declarations the migrations and the version headers run
 * (domain/versions.ts), newest version first, in the caller's language (English or German). JSON by
 * default, Markdown for `Accept: text/markdown`, an HTML page for a browser. Framework-neutral: a
 * wiring negotiates with {@link CHANGELOG_NEGOTIATION}, sets `PAGE_HEADERS` (pages/html-pages.ts) and
 * represents {@link changelogBody}.
 */
import { lookupLanguage } from '@plumbline/errors';
import type { NegotiatorOptions } from '@plumbline/negotiation';
import { type ChangelogEntry, changelog, changelogMarkdown } from '@plumbline/versioning';
import { API_VERSIONS } from '../domain/versions.js';
import { escapeHtml, page } from './html-pages.js';

/** The languages the changelog is written in; the first is the default. */
const LANGUAGES = ['en', 'de'] as const;

/** The changelog's paths: `/changelog`, and `/docs/changelog` where it was first served. */
export const CHANGELOG_PATHS = ['/changelog', '/docs/changelog'] as const;

type Language = (typeof LANGUAGES)[number];

const BODIES = new Map<Language, { readonly data: readonly ChangelogEntry[] }>(
  LANGUAGES.map((language) => [language, { data: changelog(API_VERSIONS, { language }) }]),
);

/**
 * The JSON changelog in the language `Accept-Language` asks for: every version that has changes or
 * a lifecycle, newest first (the negotiation sets the same language in `Content-Language`).
 *
 * @example
 * ```ts
 * changelogBody('de').data[0].version; // '2'
 * ```
 */
export function changelogBody(acceptLanguage: string | undefined): {
  readonly data: readonly ChangelogEntry[];
} {
  return BODIES.get(lookupLanguage(acceptLanguage, LANGUAGES, 'en') as Language)!;
}

const LABELS: Readonly<Record<Language, Readonly<Record<string, string>>>> = {
  en: {
    title: 'API changelog',
    intro:
      'What changed between the API versions, newest first. Older versions keep working through the declared changes until their sunset.',
    deprecated: 'Deprecated',
    since: 'since',
    sunset: 'Sunset',
    successor: 'Successor',
    notice: 'notice',
    policy: 'policy',
    changes: 'Changes',
    none: 'No changes: the first version.',
    affects: 'affects',
    home: 'Home',
    reference: 'API reference',
  },
  de: {
    title: 'API-Änderungsprotokoll',
    intro:
      'Was sich zwischen den API-Versionen geändert hat, neueste zuerst. Ältere Versionen funktionieren über die deklarierten Änderungen weiter, bis zu ihrem Sunset.',
    deprecated: 'Veraltet',
    since: 'seit',
    sunset: 'Sunset',
    successor: 'Nachfolger',
    notice: 'Hinweis',
    policy: 'Richtlinie',
    changes: 'Änderungen',
    none: 'Keine Änderungen: die erste Version.',
    affects: 'betrifft',
    home: 'Startseite',
    reference: 'API-Referenz',
  },
};

const target = (item: ChangelogEntry['changes'][number]['affects'][number]) =>
  typeof item === 'string' ? item : `${item.method} ${item.path}`;

function link(href: string | undefined, text: string): string {
  return href === undefined ? '' : ` (<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>)`;
}

/**
 * The changelog as an HTML page in `language`: one section per version, its lifecycle first.
 *
 * @example
 * ```ts
 * changelogPage(changelogBody('de'), 'de');
 * ```
 */
function changelogPage(body: { readonly data: readonly ChangelogEntry[] }, language: string): string {
  const labels = LABELS[language as Language] ?? LABELS.en;
  const sections = body.data.map((entry) => {
    const lifecycle = [
      entry.deprecated === undefined
        ? ''
        : `<li class="deprecated">${labels['deprecated']}${entry.deprecated === true ? '' : ` ${labels['since']} <time>${escapeHtml(entry.deprecated)}</time>`}${link(entry.links?.deprecation, labels['notice']!)}</li>`,
      entry.sunset === undefined
        ? ''
        : `<li class="sunset">${labels['sunset']}: <time>${escapeHtml(entry.sunset)}</time>${link(entry.links?.sunset, labels['policy']!)}</li>`,
      entry.successor === undefined ? '' : `<li>${labels['successor']}: v${escapeHtml(entry.successor)}</li>`,
    ].join('');
    const changes =
      entry.changes.length === 0
        ? `<p>${labels['none']}</p>`
        : `<ul>${entry.changes
            .map(
              (change) =>
                `<li>${escapeHtml(change.description)} <small>(${labels['affects']} ${escapeHtml(change.affects.map(target).join(', '))})</small></li>`,
            )
            .join('')}</ul>`;
    return `<section id="v${escapeHtml(entry.version)}">
<h2>v${escapeHtml(entry.version)}</h2>
${lifecycle === '' ? '' : `<ul>${lifecycle}</ul>\n`}<h3>${labels['changes']}</h3>
${changes}
</section>`;
  });
  return page(
    labels['title']!,
    language,
    `<main>
<h1>${labels['title']}</h1>
<p>${labels['intro']}</p>
${sections.join('\n')}
<p><a href="/">${labels['home']}</a> · <a href="/docs">${labels['reference']}</a></p>
</main>`,
  );
}

/** JSON for programs, Markdown for people writing release notes, HTML for a browser; English or German. */
export const CHANGELOG_NEGOTIATION: NegotiatorOptions = {
  types: ['application/json', 'text/markdown', 'text/html'],
  languages: [...LANGUAGES],
  serializers: {
    'text/markdown': (_data, { language }) => changelogMarkdown(API_VERSIONS, { language }),
    'text/html': (data, { language }) => changelogPage(data as { data: readonly ChangelogEntry[] }, language),
  },
};
