/**
 * A child process for the lifetime spec: the middleware on node:http (one onReceived webhook, a run that returns at
 * once), forked by the spec with --expose-gc. Over IPC: `start` begins a v8.GCProfiler window, `stop` ends it and
 * answers with what young collections moved into the old generation and how many full collections ran. Its own
 * process, so that nothing of the test runner's heap is measured.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GCProfiler } from 'node:v8';
import { createWebhookMiddleware, MemoryWebhookRegistry } from '../../lib/index.js';

interface Collection { gcType: string; beforeGC: Side; afterGC: Side }
interface Side { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] }

const oldSpace = (side: Side): number => side.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;

const registry = new MemoryWebhookRegistry();
await registry.activate({ workflowId: 'wf', nodes: [{ name: 'Webhook', parameters: { path: 'hook', httpMethod: 'POST' } }] });
const output = { items: [{ json: { ok: true } }] };
const middleware = createWebhookMiddleware(registry, () => output);
const server = createServer((req, res) => middleware(req, res, () => { res.statusCode = 404; res.end(); }));
server.keepAliveTimeout = 60_000;
let profiler: GCProfiler | undefined;
process.on('message', (message: { type: string }) => {
  if (message.type === 'start') {
    profiler = new GCProfiler();
    profiler.start();
    process.send?.({ type: 'started' });
  } else if (message.type === 'stop' && profiler !== undefined) {
    const collections = (profiler.stop() as unknown as { statistics: Collection[] }).statistics;
    const young = collections.filter((gc) => gc.gcType === 'Scavenge');
    process.send?.({
      type: 'stopped',
      scavenges: young.length,
      promoted: young.reduce((sum, gc) => sum + oldSpace(gc.afterGC) - oldSpace(gc.beforeGC), 0),
      markCompacts: collections.filter((gc) => gc.gcType === 'MarkSweepCompact').length,
    });
  }
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port }));
