/** `npm run bench`: runs every benchmark and prints its table. Never part of `npm test`. */
import { cpus } from 'node:os';
import { benchRegistryLookup } from './registry-lookup.js';

process.stdout.write(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n\n`);
process.stdout.write('## Registry look-up (in process)\n\n');
process.stdout.write(`${await benchRegistryLookup()}\n`);
