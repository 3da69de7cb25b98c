#!/usr/bin/env node
// The `plumbline-conformance` command. A committed file rather than the build output, so package
// managers can link the bin from the first install on; it runs the built CLI.
import('../dist/cli.mjs').catch((error) => {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('cli.mjs');
  process.stderr.write(
    missing
      ? 'plumbline-conformance: dist/cli.mjs is missing; build the package first (pnpm build)\n'
      : `plumbline-conformance: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 2;
});
