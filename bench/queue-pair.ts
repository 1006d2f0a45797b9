/**
 * Two web instances measured in alternating rounds with autocannon as bench/http.ts runs it (not pinned): the
 * replica-acknowledgement benchmark compares two queue-mode instances this way.
 */
import { autocannon, type BenchSettings, type Load, type Sample } from './http.js';

const LOAD: Load = { path: '/hooks/webhook/bench', headers: { 'content-type': 'application/json' }, body: '{"order":42,"item":"Tea","quantity":3}' };

export async function pair(a: { port: number }, b: { port: number }, settings: BenchSettings): Promise<[Sample[], Sample[]]> {
  const samples: [Sample[], Sample[]] = [[], []];
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] as const : [1, 0] as const;
    for (const index of order) samples[index].push(await autocannon((index === 0 ? a : b).port, LOAD, settings));
  }
  return samples;
}
