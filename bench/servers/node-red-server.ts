/**
 * Node-RED as a contender of the side-by-side speed table: embedded in an Express app as its documentation shows
 * (Express 4: Node-RED 4.1 reorders the host app's router stack, which only Express 4 has),
 * one flow per kind, an `http in` node (POST /webhook/hook; `upload` on for multipart) wired to an `http response`
 * node. Node-RED is installed outside the repository (bench/node-red.ts) and loaded from NODE_RED_DIR; argv: kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import express from 'express4';

interface NodeRed {
  init(server: unknown, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpNode: express.RequestHandler;
}

const [kind = 'json'] = process.argv.slice(2);
const dir = process.env.NODE_RED_DIR;
if (dir === undefined) throw new Error('node-red-server needs NODE_RED_DIR');
const requireHere = createRequire(join(dir, 'package.json'));
const RED = requireHere('node-red') as NodeRed;
/** Embedded, Node-RED finds its core nodes (http in, http response) only where it is told. */
const coreNodesDir = dirname(requireHere.resolve('@node-red/nodes'));

const userDir = mkdtempSync(join(tmpdir(), 'ww-node-red-'));
writeFileSync(join(userDir, 'flows.json'), JSON.stringify([
  { id: 'bench', type: 'tab', label: 'bench' },
  { id: 'in', type: 'http in', z: 'bench', url: '/webhook/hook', method: 'post', upload: kind === 'multipart', swaggerDoc: '', wires: [['out']] },
  { id: 'out', type: 'http response', z: 'bench', statusCode: '200', headers: {}, wires: [] },
]));

const app = express();
const server = createServer(app);
RED.init(server, {
  userDir,
  coreNodesDir,
  flowFile: 'flows.json',
  httpAdminRoot: false,
  httpNodeRoot: '/',
  credentialSecret: 'bench',
  logging: { console: { level: process.env.NODE_RED_LOG ?? 'off', metrics: false, audit: false } },
  editorTheme: { tours: false },
});
app.use('/', RED.httpNode);
server.keepAliveTimeout = 60_000;
await RED.start();
server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
const stop = async (): Promise<void> => {
  await RED.stop().catch(() => undefined);
  rmSync(userDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') server.close(() => { void stop(); });
});
process.on('SIGINT', () => { void stop(); });
process.on('disconnect', () => { void stop(); });
