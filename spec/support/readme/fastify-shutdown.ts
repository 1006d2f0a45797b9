/**
 * The Fastify app through middie of docs/hosts.md, run as printed in a child process: the block is read from that guide, compiled to JavaScript and
 * given the real modules for its imports. Only two things differ from the printed file: its executor is replaced by
 * one that never settles and ignores `run.signal` (a run still in flight at shutdown), and it listens on a free port,
 * which it reports as `{ port }` over IPC (and `{ running: true }` once the run has started). Its own `SIGTERM` line and close hook are kept, so the spec sees what the
 * process does when it is told to stop.
 */
import middie from '@fastify/middie';
import Fastify from 'fastify';
import ts from 'typescript';
import { createWebhookMiddleware, MemoryWebhookRegistry } from 'workflow-webhooks';
import { docBlock } from './blocks.js';

const printed = docBlock('docs/hosts.md', '### Through `@fastify/middie`');
const executor = /const executor[^\n]*\n[\s\S]*?\n\}\);\n/;
if (!executor.test(printed)) throw new Error('The hosts guide\'s Fastify block no longer defines `const executor … });` for this runner to replace');
const block = printed
  .replace(executor, 'const executor = () => { process.send?.({ running: true }); return new Promise(() => undefined); };\n')
  .replace('port: 3000', 'port: 0');
const body = ts.transpileModule(block, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
  .split('\n').filter((line) => !line.startsWith('import ')).join('\n');

const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<{ port: number }>;
const run = new AsyncFunction('Fastify', 'middie', 'createWebhookMiddleware', 'MemoryWebhookRegistry',
  `${body}\nreturn { port: app.server.address().port };`);
const { port } = await run(Fastify, middie, createWebhookMiddleware, MemoryWebhookRegistry);
process.send?.({ port });
