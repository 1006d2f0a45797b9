/**
 * Look-up cost of MemoryWebhookRegistry as it grows: the same static call with 1, 10 000 and 100 000 static
 * webhooks (plus 10 000 dynamic ones in the largest case), and a dynamic call among 10 000 dynamic webhooks.
 * In-process: it measures the registry alone, not HTTP. Rounds alternate between sizes; medians are reported.
 */
import { performance } from 'node:perf_hooks';
import { MemoryWebhookRegistry } from '../lib/index.js';

interface Scenario { label: string; registry: MemoryWebhookRegistry; method: string; path: string; activationMs: number; heapBytes: number }

async function build(label: string, statics: number, dynamics: number, path: string): Promise<Scenario> {
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const registry = new MemoryWebhookRegistry();
  const started = performance.now();
  for (let i = 0; i < statics; i += 1) {
    await registry.activate({ workflowId: `s${i}`, nodes: [{ name: 'Webhook', parameters: { path: `hooks/static-${i}`, httpMethod: 'POST' } }] });
  }
  for (let i = 0; i < dynamics; i += 1) {
    await registry.activate({ workflowId: `d${i}`, nodes: [{ name: 'Webhook', webhookId: `id-${i}`, parameters: { path: 'orders/:orderId', httpMethod: 'POST' } }] });
  }
  const activationMs = performance.now() - started;
  global.gc?.();
  const heapBytes = process.memoryUsage().heapUsed - heapBefore;
  return { label, registry, method: 'POST', path, activationMs, heapBytes };
}

async function opsPerSecond(scenario: Scenario, iterations: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const hit = await scenario.registry.lookup('production', scenario.method, scenario.path);
    if (!hit.found) throw new Error(`${scenario.label}: not found`);
  }
  return iterations / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function benchRegistryLookup(rounds = 7, iterations = 200_000): Promise<string> {
  const scenarios = [
    await build('static, 1 webhook', 1, 0, 'hooks/static-0'),
    await build('static, 10 000 webhooks', 10_000, 0, 'hooks/static-9999'),
    await build('static, 100 000 + 10 000 dynamic', 100_000, 10_000, 'hooks/static-99999'),
    await build('dynamic, among 10 000 dynamic', 0, 10_000, 'id-9999/orders/42'),
  ];
  const samples = new Map<string, number[]>(scenarios.map((s) => [s.label, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of scenarios) samples.get(scenario.label)?.push(await opsPerSecond(scenario, iterations));
  }
  const base = median(samples.get(scenarios[0]?.label ?? '') ?? []);
  const lines = [
    '| registry | look-ups/s (median) | ratio to 1 webhook | activation | heap per webhook |',
    '|---|---|---|---|---|',
  ];
  for (const scenario of scenarios) {
    const ops = median(samples.get(scenario.label) ?? []);
    const count = (await scenario.registry.list()).length;
    lines.push(`| ${scenario.label} | ${Math.round(ops).toLocaleString('en')} | ${(ops / base).toFixed(2)} | ` +
      `${scenario.activationMs.toFixed(0)} ms | ${count > 1 ? `${Math.round(scenario.heapBytes / count)} B` : '—'} |`);
  }
  return lines.join('\n');
}
