import { BUILTIN_MESSAGES, fillTemplate, type MessageParams, type MessageTemplates } from './messages.js';
import { reasonPhrase } from './status.js';

/**
 * Localized messages for error codes, with fallback to one language.
 *
 * @example
 * ```ts
 * const catalogue = createMessageCatalogue();
 * catalogue.format('search_too_short', { min: 3 }, 'de'); // 'Der Suchtext muss mindestens 3 Zeichen lang sein.'
 * ```
 */
export interface MessageCatalogue {
  /** Languages with at least one message, fallback first. */
  readonly languages: readonly string[];
  /** The language used when a message is missing in the requested one. */
  readonly fallbackLanguage: string;
  /** The message for `code` in `language` (falling back), with `params` filled in. */
  format(code: string, params: MessageParams | undefined, language: string, status?: number): string;
}

/**
 * Options for {@link createMessageCatalogue}.
 *
 * @example
 * ```ts
 * const options: MessageCatalogueOptions = { messages: { fr: { not_found: ["La ressource n'existe pas."] } } };
 * ```
 */
export interface MessageCatalogueOptions {
  /** Extra or overriding templates per language tag; merged code by code over the built-ins. */
  readonly messages?: Readonly<Record<string, MessageTemplates>>;
  /** Fallback language; must have messages. Default `en`. */
  readonly fallbackLanguage?: string;
}

/**
 * Builds a message catalogue from the built-in English and German messages plus a service's own
 * codes and languages.
 *
 * @example
 * ```ts
 * const catalogue = createMessageCatalogue({
 *   messages: { en: { quota_exceeded: ['Quota of {quota} reached.', 'Quota reached.'] } },
 * });
 * catalogue.format('quota_exceeded', { quota: 10 }, 'en'); // 'Quota of 10 reached.'
 * ```
 */
export function createMessageCatalogue(options: MessageCatalogueOptions = {}): MessageCatalogue {
  const fallbackLanguage = options.fallbackLanguage ?? 'en';
  const table = new Map<string, Map<string, readonly string[]>>();
  const merge = (language: string, templates: MessageTemplates) => {
    const key = language.toLowerCase();
    const entry = table.get(key) ?? new Map<string, readonly string[]>();
    for (const [code, list] of Object.entries(templates)) {
      if (!Array.isArray(list) || list.length === 0) {
        throw new TypeError(`Messages for "${code}" in "${language}" must be a non-empty array of templates`);
      }
      entry.set(code, list);
    }
    table.set(key, entry);
  };
  for (const [language, templates] of Object.entries(BUILTIN_MESSAGES)) merge(language, templates);
  for (const [language, templates] of Object.entries(options.messages ?? {})) merge(language, templates);
  if (!table.has(fallbackLanguage.toLowerCase())) {
    throw new RangeError(`Fallback language "${fallbackLanguage}" has no messages`);
  }
  const originalCase = new Map<string, string>();
  for (const language of [...Object.keys(BUILTIN_MESSAGES), ...Object.keys(options.messages ?? {})]) {
    originalCase.set(language.toLowerCase(), language);
  }
  const languages = [
    fallbackLanguage,
    ...[...originalCase.values()].filter((l) => l.toLowerCase() !== fallbackLanguage.toLowerCase()),
  ];

  return Object.freeze({
    languages: Object.freeze(languages),
    fallbackLanguage,
    format(code: string, params: MessageParams | undefined, language: string, status?: number): string {
      for (const lang of [language.toLowerCase(), fallbackLanguage.toLowerCase()]) {
        const templates = table.get(lang)?.get(code);
        const text = templates && fillTemplate(templates, params);
        if (text) return text;
      }
      // A code nobody wrote a message for: the status phrase is still truthful.
      return `${reasonPhrase(status ?? 500)}.`;
    },
  });
}

/**
 * The catalogue with the built-in English and German messages.
 *
 * @example
 * ```ts
 * defaultCatalogue.format('not_found', undefined, 'de'); // 'Die angeforderte Ressource existiert nicht.'
 * ```
 */
export const defaultCatalogue: MessageCatalogue = createMessageCatalogue();
