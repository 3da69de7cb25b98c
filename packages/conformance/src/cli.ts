#!/usr/bin/env node
/**
 * The `plumbline-conformance` command. All logic is in {@link runCli}; this file only binds it to
 * the process.
 *
 * @packageDocumentation
 */
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  progress: (text) => process.stderr.write(text),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`plumbline-conformance: ${String(error)}\n`);
    process.exitCode = 2;
  },
);
