// The bearer token every benchmark server verifies, and the loopback JWKS server the libraries that
// need a key URL fetch from. Shared by run.mjs and profile.mjs so both measure the same thing.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const ISSUER = 'https://issuer.bench.test/';
const AUDIENCE = 'https://api.bench.test';

/** Starts the JWKS server; returns the token, the env the bench servers read, and `close()`. */
export async function startBenchAuth() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' };
  const jwks = JSON.stringify({ keys: [publicJwk] });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
    res.end(jwks);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const token = await new SignJWT({ scope: 'read:projects', client_id: 'bench-client' })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench-1', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('bench-client')
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return {
    token,
    env: {
      BENCH_PUBLIC_JWK: JSON.stringify(publicJwk),
      BENCH_JWKS_URL: `http://127.0.0.1:${server.address().port}/jwks.json`,
      BENCH_ISSUER: ISSUER,
      BENCH_AUDIENCE: AUDIENCE,
    },
    close: () => server.close(),
  };
}
