import { isIP } from 'node:net';

/**
 * Which peers may tell us the original protocol through `X-Forwarded-Proto`: `true` (any; only
 * behind a proxy that always overwrites the header), `false` (none), a list of addresses, or a test.
 *
 * @example
 * ```ts
 * const trust: TrustProxy = ['10.0.0.1', '10.0.0.2'];
 * ```
 */
export type TrustProxy = boolean | readonly string[] | ((remoteAddress: string) => boolean);

/**
 * Options for {@link isSecureRequest} (and the Express `requireHttps()`).
 *
 * @example
 * ```ts
 * const options: RequireHttpsOptions = { trustProxy: ['127.0.0.1'], allowLoopback: false };
 * ```
 */
export interface RequireHttpsOptions {
  /** Default false. */
  readonly trustProxy?: TrustProxy;
  /** Let plain HTTP from a loopback peer through. Default: true only when `NODE_ENV` is `development` or `test`. */
  readonly allowLoopback?: boolean;
}

/**
 * What {@link isSecureRequest} looks at.
 *
 * @example
 * ```ts
 * const input: SecureRequestInput = { encrypted: false, remoteAddress: '10.0.0.1', forwardedProto: 'https' };
 * ```
 */
export interface SecureRequestInput {
  /** True when the connection itself is TLS. */
  readonly encrypted: boolean;
  readonly remoteAddress: string | undefined;
  /** The raw `X-Forwarded-Proto` value(s). */
  readonly forwardedProto?: string | readonly string[] | undefined;
}

/**
 * True for a loopback address (IPv4 127/8, `::1`, and their IPv4-mapped forms).
 *
 * @example
 * ```ts
 * isLoopback('::ffff:127.0.0.1'); // true
 * ```
 */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
}

function trusts(trust: TrustProxy, address: string | undefined): boolean {
  if (address === undefined) return false;
  if (typeof trust === 'boolean') return trust;
  if (typeof trust === 'function') return trust(address);
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return trust.includes(address) || trust.includes(plain);
}

/**
 * Builds the check behind `requireHttps()`: TLS on the socket, or `X-Forwarded-Proto: https` set by
 * a trusted proxy (the last value, which that proxy wrote), or a loopback peer when allowed.
 *
 * @example
 * ```ts
 * const secure = isSecureRequest({ trustProxy: true });
 * secure({ encrypted: false, remoteAddress: '10.0.0.1', forwardedProto: 'https' }); // true
 * ```
 */
export function isSecureRequest(options: RequireHttpsOptions = {}): (input: SecureRequestInput) => boolean {
  const trustProxy = options.trustProxy ?? false;
  const env = process.env['NODE_ENV'];
  const allowLoopback = options.allowLoopback ?? (env === 'development' || env === 'test');
  return (input) => {
    if (input.encrypted) return true;
    if (
      trustProxy !== false &&
      input.forwardedProto !== undefined &&
      trusts(trustProxy, input.remoteAddress)
    ) {
      const joined =
        typeof input.forwardedProto === 'string' ? input.forwardedProto : input.forwardedProto.join(',');
      const last = joined.split(',').at(-1)?.trim().toLowerCase();
      if (last === 'https') return true;
    }
    return allowLoopback && isLoopback(input.remoteAddress);
  };
}
