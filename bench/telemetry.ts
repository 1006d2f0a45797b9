/**
 * The cost of what observes the calls, measured beside the plain middleware in the same run: the middleware in
 * Express 5 alone, with `webhookTelemetry()` and no SDK registered (the API's no-ops; the goal is ≤ 2 % slower),
 * with the SDK as a host sets it up, exporting to memory, and with the webhook console mounted (every call recorded
 * in its memory call log). Small JSON calls, onReceived; contenders in their own processes, alternating rounds, the
 * ratio the median of the rounds' own ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './http.js';
import { ensureBuild, fmt, loads, measure, type Contender, type SpeedSettings } from './speed/runner.js';

const CONTENDERS: Contender[] = [
  { label: 'this middleware in Express 5 (onReceived)', server: 'speed-server.ts', args: ['middleware', 'json'] },
  { label: 'with OpenTelemetry API, no SDK', server: 'speed-server.ts', args: ['middleware-otel-api', 'json'] },
  { label: 'with SDK and in-memory exporter', server: 'speed-server.ts', args: ['middleware-otel-sdk', 'json'] },
  { label: 'with the console mounted (recent calls in memory)', server: 'speed-server.ts', args: ['middleware-console', 'json'] },
];

export async function benchTelemetry(settings: Omit<SpeedSettings, 'kinds'>): Promise<string> {
  ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'ww-otel-'));
  let samples: Map<string, number[]>;
  try {
    samples = await measure(CONTENDERS, loads(dir).json, 'json', settings);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const plain = samples.get(CONTENDERS[0]!.label) ?? [];
  const lines = [`${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.rounds} rounds × ${settings.seconds} s, medians.`, '',
    '| contender | small JSON req/s | ÷ plain middleware (rounds) |', '|---|---:|---|'];
  for (const [label, rates] of samples) {
    const each = rates.map((rate, round) => rate / (plain[round] as number));
    const goal = label.includes('no SDK') ? ` — goal ≥ 0.98, ${median(each) >= 0.98 ? 'met' : 'not met'}` : '';
    lines.push(`| ${label} | ${fmt(median(rates))} | ${median(each).toFixed(3)} (${each.map((ratio) => ratio.toFixed(3)).join(', ')})${goal} |`);
  }
  return lines.join('\n');
}
