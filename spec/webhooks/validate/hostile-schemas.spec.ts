/**
 * A workflow's schemas and a call's body may both come from an attacker. Each schema below stalled or ended the
 * process before: now it is refused when the workflow is activated, or, once active, its crafted calls are answered
 * 4xx within one call's budget while another caller's call is answered too, the event loop never waits longer than
 * the documented bound, and the heap comes back to where it was.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'chai';
import { createWebhookMiddleware, MemoryWebhookRegistry, WebhookError, type JsonSchema } from '../../../lib/index.js';
import { HOSTS, BASE } from '../../support/apps.js';

/**
 * The longest the event loop may wait while a hostile schema is activated and its crafted calls checked: the old
 * stalls lasted seconds; on a quiet machine the longest wait here is under 100 ms, and the bound leaves room for a busy
 * CI machine's scheduling and collections (docs/payload-schemas.md).
 */
const LONGEST_GAP_MS = 500;
/** What the heap may keep after a hostile case, once collected. */
const HEAP_GROWTH_BYTES = 64 * 1024 * 1024;

const express5 = HOSTS[0] as (typeof HOSTS)[number];
const many = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

const recursion = (combinator: 'anyOf' | 'oneOf' | 'allOf'): JsonSchema => ({
  $defs: { a: { [combinator]: [{ items: { $ref: '#/$defs/a' } }, { items: { $ref: '#/$defs/a' } }] } },
  $ref: '#/$defs/a',
});

/** Refused at activation: no value could be checked against them in bounded time. */
const REFUSED: [string, JsonSchema, string][] = [
  ['recursion through anyOf, twice per level', recursion('anyOf'), 'more than one path per level'],
  ['recursion through oneOf, twice per level', recursion('oneOf'), 'more than one path per level'],
  ['recursion through allOf, twice per level', recursion('allOf'), 'more than one path per level'],
  ['recursion through if/then/else', { $defs: { a: { if: { items: { $ref: '#/$defs/a' } }, then: { items: { $ref: '#/$defs/a' } }, else: { items: { $ref: '#/$defs/a' } } } }, $ref: '#/$defs/a' }, 'more than one path per level'],
  ['recursion through properties and patternProperties on one key', { $defs: { a: { properties: { x: { $ref: '#/$defs/a' } }, patternProperties: { x: { $ref: '#/$defs/a' } } } }, $ref: '#/$defs/a' }, 'more than one path per level'],
  ['a reference to itself on the same value', { $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'string' }] } }, $ref: '#/$defs/a' }, 'never end'],
  ['a $dynamicRef to its own anchor', { $dynamicAnchor: 'x', $dynamicRef: '#x' }, 'never end'],
  ['a backreference', { type: 'string', pattern: '^(a+)\\1$' }, 'backreference'],
  ['a lookahead', { type: 'string', pattern: '^(?=(a+))\\1b' }, 'lookahead'],
  ['bounded varying repeats stacked', { type: 'string', pattern: `^${'\\w{0,99}'.repeat(12)}$` }, 'repeats too much'],
  ['any character, bounded, stacked', { type: 'string', pattern: `^${'.{0,256}'.repeat(4)}!$` }, 'repeats too much'],
  ['many large patterns', { type: 'object', properties: Object.fromEntries(many(8, (index) => [`f${index}`, { type: 'string', pattern: `^\\w{0,900}${index}$` }])) }, 'together compile'],
];

/** An 11.7 KB schema whose definitions refer to the previous one ten times each: inlined, 2.4 GB and 20 s to compile. */
function fanOut(): JsonSchema {
  const $defs: Record<string, unknown> = { d0: { type: 'string', maxLength: 8 } };
  for (let level = 1; level < 12; level++) {
    $defs[`d${level}`] = { type: 'object', properties: Object.fromEntries(many(10, (index) => [`p${index}`, { $ref: `#/$defs/d${level - 1}` }])) };
  }
  return { $defs, $ref: '#/$defs/d11' };
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = { p0: value };
  return value;
}

/** Active, and each crafted body answered 4xx. */
const ANSWERED: [string, JsonSchema, unknown[]][] = [
  ['an alternation inside one more group', { type: 'string', pattern: '^((\\w|\\d))+$' }, [`${'a'.repeat(30)}!`, `${'a'.repeat(200_000)}!`]],
  ['optional alternations repeated', { type: 'string', pattern: `^${'(?:a|a)?'.repeat(20)}a{20}$`, maxLength: 10 }, ['a'.repeat(31), 'a'.repeat(100_000)]],
  ['bounded varying repeats stacked, within the program bound', { type: 'string', pattern: `^${'\\w{0,60}'.repeat(12)}$` }, [`${'a'.repeat(31)}!`, `${'a'.repeat(20_000)}!`]],
  ['any character, bounded, stacked, within the program bound', { type: 'string', pattern: `^${'.{0,200}'.repeat(4)}!$` }, ['a'.repeat(1_100), 'a'.repeat(300_000)]],
  ['nested quantifiers', { type: 'string', pattern: '^(a+)+$' }, [`${'a'.repeat(40)}!`, `${'a'.repeat(300_000)}!`]],
  ['an alternation under repetition', { type: 'string', pattern: '^(a|ab|abc)*$' }, [`${'ab'.repeat(30)}!`]],
  ['a pattern on 600 strings', { type: 'array', items: { type: 'string', pattern: '^(\\w+\\s?)*$' } }, [many(600, () => `${'word '.repeat(200)}!`)]],
  ['40 pattern properties', { type: 'object', additionalProperties: false, patternProperties: Object.fromEntries(many(40, (index) => [`^(a|aa)*${index}$`, true])) }, [{ [`${'a'.repeat(40)}!`]: 1 }]],
  ['uniqueItems on 20 000 objects', { type: 'array', uniqueItems: true }, [[...many(20_000, (index) => ({ id: index, name: 'n' })), { id: 0, name: 'n' }]]],
  ['a large enum for every item', { type: 'array', items: { enum: many(1_800, (index) => ({ code: index })) } }, [[...many(5_000, (index) => ({ code: index })), { code: -1 }]]],
  ['definitions referred to from many places', fanOut(), [nested(11, 'x'.repeat(9)), many(2, () => nested(11, 1))]],
  ['every item wrong in a large body', { type: 'array', items: { type: 'string' } }, [many(400_000, (index) => index)]],
  ['a body whose own keys are valueOf and toString', { type: 'array', uniqueItems: true, items: { enum: [{ a: 1 }, { b: 2 }] } }, [[{ valueOf: 'x', toString: 'y' }], [{ a: 1 }, { a: 1 }]]],
  ['a const met by a body with its own valueOf', { const: { a: 1 } }, [{ valueOf: 1, toString: 'x', a: 1 }]],
];

describe('hostile payload schemas', function () {
  this.timeout(60_000);
  let server: Server;
  let registry: MemoryWebhookRegistry;
  let url: string;
  const delay = monitorEventLoopDelay({ resolution: 5 });

  before(async () => {
    registry = new MemoryWebhookRegistry();
    await registry.activate({ workflowId: 'other', nodes: [{ name: 'Hook', parameters: { path: 'other', httpMethod: 'POST' } }] });
    const middleware = createWebhookMiddleware(registry, () => ({ items: [{ json: {} }] }), { limits: { jsonSize: '16mb', bodySize: '16mb' } });
    server = createServer(express5.build(middleware));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}/webhook`;
  });
  after(() => (server === undefined ? undefined : new Promise<void>((resolve) => server.close(() => resolve()))));

  /** Runs one case with the event loop watched and the heap measured before and after. */
  async function watched(work: () => Promise<void>): Promise<void> {
    (globalThis as { gc?: () => void }).gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    delay.reset();
    delay.enable();
    try {
      await work();
      // A gap is recorded when the watching timer fires after it: let it fire once more.
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      delay.disable();
    }
    (globalThis as { gc?: () => void }).gc?.();
    const kept = process.memoryUsage().heapUsed - heapBefore;
    console.log(`      longest event-loop wait ${(delay.max / 1e6).toFixed(1)} ms, heap kept ${(kept / 1024 / 1024).toFixed(1)} MiB`);
    expect(delay.max / 1e6, 'the event loop\'s longest wait, in ms').to.be.below(LONGEST_GAP_MS);
    expect(kept, 'heap kept').to.be.below(HEAP_GROWTH_BYTES);
  }

  for (const [name, schema, reason] of REFUSED) {
    it(`refuses at activation a schema with ${name}, saying why`, async () => {
      let refused: unknown;
      await watched(async () => {
        await registry.activate({ workflowId: 'hostile', nodes: [{ name: 'Hook', parameters: { path: 'hostile', httpMethod: 'POST' } }], schemas: { Hook: { body: schema } } }).catch((error: unknown) => { refused = error; });
      });
      expect(refused).to.be.instanceOf(WebhookError);
      expect((refused as WebhookError).code).to.equal('WEBHOOK_INVALID_NODE');
      expect((refused as WebhookError).message).to.include(reason);
    });
  }

  for (const [name, schema, bodies] of ANSWERED) {
    it(`answers 4xx to crafted calls against a schema with ${name}, and serves another caller meanwhile`, async () => {
      const path = `hostile-${ANSWERED.findIndex(([other]) => other === name)}`;
      await watched(async () => {
        await registry.activate({ workflowId: path, nodes: [{ name: 'Hook', parameters: { path, httpMethod: 'POST' } }], schemas: { Hook: { body: schema } } });
        for (const body of bodies) {
          const [crafted, other] = await Promise.all([
            fetch(`${url}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
            fetch(`${url}/other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' }),
          ]);
          const answer = await crafted.json() as { code: string };
          expect(crafted.status, JSON.stringify(answer).slice(0, 200)).to.equal(422);
          expect(answer.code).to.be.oneOf(['PAYLOAD_INVALID', 'PAYLOAD_TOO_COSTLY']);
          expect(other.status).to.equal(200);
          await other.arrayBuffer();
        }
      });
      await registry.deactivate(path);
    });
  }
});
