import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, helpText, loadConfig } from './config.js';

const SHUTDOWN_GRACE_MS = 10_000;

function main(): void {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(helpText());
    return;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}\n\n${helpText()}`);
      process.exit(2);
    }
    throw error;
  }
  const app = createApp();
  const server: Server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    console.info(`Plumbline reference service listening on http://${config.host}:${port}`);
    console.info(`Try: curl -i http://${config.host}:${port}/health`);
  });
  server.on('error', (error) => {
    console.error(`Could not listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.info(`${signal} received: finishing in-flight requests`);
    // Stop accepting connections; close idle keep-alive sockets now, busy ones when they finish.
    server.close((error) => process.exit(error ? 1 : 0));
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main();
