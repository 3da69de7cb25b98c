import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../src/service/config.js';

describe('the Node.js versions the service starts on', () => {
  it.each([
    ['20.19.0', false],
    ['22.12.0', false],
    ['22.13.0', true],
    ['22.23.3', true],
    ['23.0.0', true],
    ['24.21.0', true],
    ['26.10.0', true],
  ])('%s → runs: %s', (version, runs) => {
    expect(unsupportedNode(version) === undefined).toBe(runs);
  });

  it('says which Node it needs, which it found and how to get one', () => {
    expect(unsupportedNode('20.19.0')).toBe(
      "The Plumbline reference service needs Node.js 22.13.0 or newer (it stores data with the built-in node:sqlite); this is Node.js 20.19.0. In the repository, `npx -y pnpm@10 start` runs it on the workspace's own Node.js 24, whatever Node.js the machine has.",
    );
  });
});
