/**
 * Small pieces the adapters share: the header getter for `propagation.extract`, header values as
 * one string, the port a `Host` names, and the adapters' common options.
 */
import type { TextMapGetter } from '@opentelemetry/api';
import type { PrincipalLike, TelemetryOptions } from './telemetry.js';

/** Node's request headers (lower-case names) as `propagation.extract` reads them. */
export const NODE_HEADERS: TextMapGetter<Readonly<Record<string, string | string[] | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** A header value as one string. */
export function headerText(value: number | string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value);
}

/** The host and port a `Host` value names (the port defaults by scheme). */
export function hostAndPort(
  host: string | undefined,
  scheme: string,
): { readonly address: string | undefined; readonly port: number | undefined } {
  if (host === undefined || host === '') return { address: undefined, port: undefined };
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  if (match === null) return { address: undefined, port: undefined };
  const port =
    match[2] === undefined
      ? scheme === 'https'
        ? 443
        : scheme === 'http'
          ? 80
          : undefined
      : Number(match[2]);
  return { address: match[1], port };
}

/**
 * Options of every adapter: the core's, plus getters that read what the other Plumbline packages
 * know of a request (`getPrincipal` of `@plumbline/auth`, `getApiVersion` of
 * `@plumbline/versioning`), passed in so this package depends on none of them.
 *
 * @example
 * ```ts
 * const options: AdapterOptions<Request> = { principal: getPrincipal, apiVersion: getApiVersion };
 * ```
 */
export interface AdapterOptions<Req> extends TelemetryOptions {
  /** The authenticated principal (`getPrincipal` of `@plumbline/auth/<framework>`). */
  readonly principal?: (req: Req) => PrincipalLike | undefined;
  /** The API version served (`getApiVersion` of `@plumbline/versioning/<framework>`). */
  readonly apiVersion?: (req: Req) => string | undefined;
  /**
   * How the version served was read, recorded as `plumbline.api.version_source` next to it: the
   * strategy that found it in the request (`path`, `query`, `header`, `media-type`, `date`), or
   * `default` when the request named none. With `@plumbline/versioning`:
   * `(req) => { const v = getResolvedVersion(req); return v && (v.defaulted ? 'default' : 'header'); }`.
   */
  readonly apiVersionSource?: (req: Req) => string | undefined;
  /** The route template, instead of the one the adapter reads from the framework. */
  readonly route?: (req: Req) => string | undefined;
}

/** Longest problem body read for its `error_code`. */
export const MAX_PROBLEM_BYTES = 16_384;
