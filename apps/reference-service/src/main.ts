import { ConfigError, helpText, loadConfig, type ServiceConfig, unsupportedNode } from './service/config.js';
import { type OtelSettings, otelSettings, telemetryNodeError } from './service/telemetry.js';

/** The curl target of the project list, v2, in the shape VERSIONING_STRATEGY gives. */
function tryProjects(base: string, config: ServiceConfig): string {
  switch (config.versioningStrategy) {
    case 'path':
      return `${base}/v2/projects`;
    case 'query':
      return `"${base}/projects?version=2"`;
    case 'header':
      return `-H "X-API-Version: 2" ${base}/projects`;
    case 'media-type':
      return `-H "Accept: application/vnd.plumbline.v2+json" ${base}/projects`;
  }
}

function readConfig(): { config: ServiceConfig; otel: OtelSettings | undefined } {
  try {
    const otel = otelSettings();
    const tooOldForOtel = telemetryNodeError(otel, process.versions.node);
    if (tooOldForOtel) throw tooOldForOtel;
    return { config: loadConfig(), otel };
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}\n\n${helpText()}`);
      process.exit(2);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(helpText());
    return;
  }
  const tooOld = unsupportedNode(process.versions.node);
  if (tooOld) {
    console.error(tooOld);
    process.exit(1);
  }
  const { config, otel } = readConfig();
  // OpenTelemetry only when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, service/telemetry.ts),
  // and first, so the tracer and meter providers are registered before the app is built.
  const sdk = otel
    ? await (await import('./service/otel-sdk.js')).startOtelSdk(otel, {
        scheme: config.tls ? 'https' : 'http',
      })
    : undefined;
  // The rest loads only now: `--help`, a configuration error and a too-old Node answer without
  // loading the database drivers, Redis, pino or a framework (the listener loads just the one configured).
  const [
    { createListener, FRAMEWORK_NAMES },
    { createServer },
    { createContext },
    { createLogger, keySetErrorLogger },
    { describeCredentials },
  ] = await Promise.all([
    import('./listener.js'),
    import('./server.js'),
    import('./service/context.js'),
    import('./service/logging.js'),
    import('./service/seed.js'),
  ]);
  // JSON lines in production and whenever stdout is not a terminal; one readable line per entry otherwise.
  const logger = createLogger({
    level: config.logLevel,
    pretty: process.stdout.isTTY === true && config.env !== 'production',
  });
  const ctx = await createContext(config, { onKeySetError: keySetErrorLogger(logger) });
  const server = createServer(await createListener(ctx, logger), config);

  server.on('error', (error) => {
    console.error(`Could not listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const base = `${config.tls ? 'https' : 'http'}://${host}:${port}`;
    console.info(`Plumbline reference service listening on ${base}`);
    console.info(
      `Framework: ${FRAMEWORK_NAMES[config.framework]}; storage: ${config.databaseUrl ? 'PostgreSQL' : `SQLite (${config.databaseFile})`}; shared state: ${config.redisClusterNodes ? 'Redis Cluster' : config.redisUrl ? 'Redis' : 'in memory'}`,
    );
    console.info(
      `Open ${base}/ (API index) or ${base}/docs (interactive reference); metrics at ${base}/metrics`,
    );
    console.info(`Try: curl -i ${base}/health   (API description: ${base}/openapi.json)`);
    if (ctx.demoCredentials)
      console.info(`\n${describeCredentials(base, ctx.demoCredentials, tryProjects(base, config))}`);
  });

  let stopping = false;
  // While stopping, every response closes its connection: keep-alive clients that keep sending on a
  // busy connection would otherwise hold it (and the process) open until the grace timer kills it.
  server.prependListener('request', (_req, res) => {
    if (stopping) res.shouldKeepAlive = false;
  });
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.info(`${signal} received: finishing in-flight requests`);
    // Stop accepting connections; idle keep-alive sockets close now, busy ones as their response ends.
    server.close(async (error) => {
      clearInterval(sweep);
      await ctx.close();
      // The last spans and metric readings go out before the process ends (bounded by the grace timer too).
      await sdk?.shutdown(config.shutdownGraceMs);
      process.exit(error ? 1 : 0);
    });
    server.closeIdleConnections();
    // A connection busy at the signal turns idle once its response is out: close it then.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    setTimeout(() => {
      console.error(`Requests still running after ${config.shutdownGraceMs} ms: closing them`);
      server.closeAllConnections();
      void ctx
        .close()
        .then(() => sdk?.shutdown(1000))
        .finally(() => process.exit(1));
    }, config.shutdownGraceMs).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('The service could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
