import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { describeRegistryContract } from '../../support/registry-contract/index.js';
import { KeyValueRegistry } from './readme-registry.js';

describe('README\'s "Write your own registry" example', () => {
  it('is the code of readme-registry.ts, so what README shows is what the suite runs', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL('./readme-registry.ts', import.meta.url), 'utf8');
    const code = source.slice(source.indexOf('*/\n') + 3);
    expect(readme).to.include(`\`\`\`ts\n${code}\`\`\``);
  });
});

describeRegistryContract('README\'s key-value registry', { create: () => new KeyValueRegistry() });
