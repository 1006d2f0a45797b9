/** `npm run bench`: runs every benchmark and prints its table. Never part of `npm test`. */
import { cpus } from 'node:os';
import { benchRegistryLookup } from './registry-lookup.js';
import { benchUpload } from './upload.js';
import { benchDefinitions } from './definitions.js';

const only = process.argv[2];
process.stdout.write(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n\n`);
if (only === undefined || only === 'registry') {
  process.stdout.write(`## Registry look-up (in process)\n\n${await benchRegistryLookup()}\n\n`);
}
if (only === undefined || only === 'definitions') {
  process.stdout.write(`## Definition validation (in process)\n\n${await benchDefinitions()}\n\n`);
}
if (only === undefined || only === 'upload') {
  process.stdout.write(`## 1 GiB multipart upload (server in its own process)\n\n${await benchUpload()}\n\n`);
}
