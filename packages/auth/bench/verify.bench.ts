import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { exportJWK, jwtVerify, SignJWT } from 'jose';
import { bench, describe } from 'vitest';
import { createJwtVerifier } from '../src/index.js';

const ISS = 'https://issuer.bench';
const AUD = 'https://api.bench';

const pairs: Record<string, { privateKey: KeyObject; publicKey: KeyObject }> = {
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  EdDSA: generateKeyPairSync('ed25519'),
  RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
};

for (const [alg, pair] of Object.entries(pairs)) {
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: alg, alg };
  const token = await new SignJWT({ client_id: 'bench', scope: 'read:items write:items', jti: 'bench-jti' })
    .setProtectedHeader({ alg, kid: alg, typ: 'at+jwt' })
    .setIssuer(ISS)
    .setAudience(AUD)
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(pair.privateKey);
  const trusted = { issuer: ISS, audience: AUD, jwks: { keys: [jwk] }, requireAccessTokenType: true };
  const uncached = createJwtVerifier({ issuers: [trusted], cacheSize: 0 });
  const cached = createJwtVerifier({ issuers: [trusted] });
  await cached.verify(token);

  describe(`${alg} token`, () => {
    bench('bare jose.jwtVerify (public key)', async () => {
      await jwtVerify(token, pair.publicKey, { algorithms: [alg], issuer: ISS, audience: AUD });
    });
    bench('verifier, first verification (cache off)', async () => {
      await uncached.verify(token);
    });
    bench('verifier, cached verification', async () => {
      await cached.verify(token);
    });
  });
}
