import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { describeRegistryContract } from '../../support/registry-contract/index.js';
import { readDoc } from '../../support/readme/blocks.js';
import { KeyValueRegistry } from './readme-registry.js';

describe('the workflows guide\'s "Write your own registry" example', () => {
  it('is the code of readme-registry.ts, so what the workflows guide (docs/workflows.md) shows is what the suite runs', () => {
    const readme = readDoc('docs/workflows.md');
    const source = readFileSync(new URL('./readme-registry.ts', import.meta.url), 'utf8');
    const code = source.slice(source.indexOf('*/\n') + 3);
    expect(readme).to.include(`\`\`\`ts\n${code}\`\`\``);
  });
});

describeRegistryContract('the workflows guide\'s key-value registry', { create: () => new KeyValueRegistry() });
