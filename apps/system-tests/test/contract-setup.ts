/** Fails a system-test file whose recorded traffic breaks the service's /openapi.json. */
import { afterAll } from 'vitest';
import { contractViolations } from './contract.js';

afterAll(async () => {
  const violations = await contractViolations();
  if (violations !== '') throw new Error(`Responses that break /openapi.json:\n${violations}`);
});
