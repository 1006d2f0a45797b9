import { expect } from 'chai';
import { InProcessReplayMemory } from '../../../lib/webhooks/registry/message-ids.js';

describe('the in-process memory of signed message ids', () => {
  it('never holds more ids than its bound, forgetting the oldest first', () => {
    const memory = new InProcessReplayMemory(100);
    for (let index = 0; index < 1000; index += 1) expect(memory.remember(`id-${index}`, 60_000)).to.equal(true);
    expect(memory.size).to.equal(100);
    expect(memory.remember('id-999', 60_000)).to.equal(false);
    expect(memory.remember('id-0', 60_000)).to.equal(true);
  });

  it('forgets an id once it expired, and drops expired ids as new ones come', async () => {
    const memory = new InProcessReplayMemory();
    for (let index = 0; index < 50; index += 1) memory.remember(`old-${index}`, 20);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(memory.remember('old-3', 20)).to.equal(true);
    expect(memory.size).to.equal(1);
  });
});
