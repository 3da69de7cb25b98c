// Checks that the services the tests need answer, and says clearly which one does not.
// Used by .ci/run before the tests: a missing service is a machine problem, not a test failure.
import { Socket } from 'node:net';
import pg from 'pg';

const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function redisPing() {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(3000, () => done('timed out'));
    socket.once('error', (error) => done(error.message));
    socket.once('data', (data) =>
      done(data.toString().startsWith('+PONG') ? true : `answered ${JSON.stringify(data.toString().trim())}`),
    );
    socket.connect(Number(redisUrl.port || 6379), redisUrl.hostname || '127.0.0.1', () =>
      socket.write('PING\r\n'),
    );
  });
}

async function postgresQuery() {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    return error.message;
  } finally {
    await client.end().catch(() => {});
  }
}

const results = [
  ['Redis', redisUrl.href, await redisPing()],
  ['PostgreSQL', databaseUrl.replace(/:[^:@/]+@/, ':***@'), await postgresQuery()],
];
let failed = false;
for (const [name, where, result] of results) {
  if (result === true) console.info(`ok: ${name} answers at ${where}`);
  else {
    failed = true;
    console.error(`FAIL: ${name} does not answer at ${where}: ${result}`);
  }
}
if (failed) {
  console.error(
    'The test suite needs Redis and PostgreSQL (set REDIS_URL / DATABASE_URL to point elsewhere).',
  );
  process.exit(1);
}
