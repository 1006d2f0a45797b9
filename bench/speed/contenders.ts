/**
 * Who runs in `npm run bench -- speed`, in the order they run: each compared pair side by side, so a pair meets the
 * same moment of a noisy host (the limit and the middleware on node:http, then each older build; the limit after
 * Express's prototype switch, Express's ceiling
 * and the middleware in Express, then each older build; the Express route, Node-RED; the Fastify route, middie and
 * the plugin of workflow-webhooks/fastify). BENCH_CONTENDERS (a comma list of ids, a baseline's commit for both its rows, or `baselines`)
 * runs a subset; an unknown name is an error.
 */
import { join } from 'node:path';
import type { BuiltBaseline } from './baselines.js';
import type { Contender, Kind } from './runner.js';

export interface SpeedContender extends Contender {
  id: string;
  /**
   * Measured for allocation and GC too: every contender that runs this middleware, and the bare servers of its hosts
   * (the limit, Express's ceiling, the Fastify route), whose figures are the hosts' own share.
   */
  allocation: boolean;
}

export type NodeRed = { dir: string } | { notRun: string };

export const LABELS: Record<string, string> = {
  limit: 'node:http that only parses the body and answers (the limit)',
  node: 'this middleware on node:http (onReceived)',
  schema: 'this middleware on node:http, the body checked by a 10-field JSON Schema (small JSON only)',
  switched: 'node:http, the limit\'s handler after switching the prototypes of req and res as Express 5 does (no Express)',
  ceiling: 'Express 5, the same parse-and-answer handler in app.use() (Express\'s ceiling)',
  express: 'this middleware in Express 5 (onReceived)',
  front: 'this middleware mounted by Connect in front of an Express 5 app (docs/hosts.md)',
  route: 'Express 5 route with express.json()/urlencoded()/busboy',
  reads: 'this middleware in Express 5, its run reading every file\'s bytes',
  'node-red': 'Node-RED 4.1 `http in` → `http response`, embedded in Express 4',
  fastify: 'Fastify 5 route with its own parsers (JSON, @fastify/formbody, @fastify/multipart)',
  middie: 'this middleware in Fastify 5 through @fastify/middie',
  plugin: 'this middleware in Fastify 5 as a plugin (workflow-webhooks/fastify)',
};

/** A pinned build's rows: `node@<commit>` and `express@<commit>`. */
export const baselineLabel = (host: 'node' | 'express', commit: string): string =>
  `${host === 'node' ? 'this middleware on node:http' : 'this middleware in Express 5'}, build ${commit}`;

/** Every contender of one column, selection aside; baselines that could not be built are left to the report. */
function all(kind: Kind, nodeRed: NodeRed, baselines: readonly BuiltBaseline[]): SpeedContender[] {
  const speed = (id: string, family: string, allocation: boolean): SpeedContender =>
    ({ id, label: LABELS[id] as string, server: 'speed-server.ts', args: [family, kind], allocation });
  const fastify = (id: string, family: string, allocation: boolean): SpeedContender =>
    ({ id, label: LABELS[id] as string, server: 'fastify-server.ts', args: [family, kind], prefix: '/hooks', allocation });
  const pinned = (host: 'node' | 'express'): SpeedContender[] => baselines.flatMap((baseline) => ('entry' in baseline
    ? [{ id: `${host}@${baseline.commit}`, label: baselineLabel(host, baseline.commit), server: 'speed-server.ts',
      args: [host === 'node' ? 'mwnode' : 'middleware', kind], env: { BENCH_BUILD: baseline.entry }, allocation: true }]
    : []));
  const list = [
    speed('limit', 'node', true), speed('node', 'mwnode', true),
    // A payload schema's cost per call, beside the same build without one (docs/payload-schemas.md).
    ...(kind === 'json' ? [speed('schema', 'mwnode-schema', true)] : []), ...pinned('node'),
    speed('switched', 'switched', true), speed('ceiling', 'ceiling', true), speed('express', 'middleware', true),
    { ...speed('front', 'connect-front', false), prefix: '/hooks' }, ...pinned('express'),
    speed('route', 'express', false),
  ];
  // The middleware joins a file's chunks into one Buffer only when the run reads it; the route always does. This
  // row has the run read every file, so the same work is compared too.
  if (kind === 'multipart') list.push(speed('reads', 'middleware-reads', false));
  if ('dir' in nodeRed) {
    list.push({ id: 'node-red', label: LABELS['node-red'] as string, server: 'node-red-server.ts', args: [kind],
      env: { NODE_RED_DIR: join(nodeRed.dir, 'node_modules', 'node-red') }, allocation: false });
  }
  list.push(fastify('fastify', 'fastify-route', true), fastify('middie', 'fastify-middie', true), fastify('plugin', 'fastify-plugin', true));
  return list;
}

/** The ids a BENCH_CONTENDERS list names (undefined: all), checked against every id there can be. */
export function selection(list: string | undefined, baselines: readonly { commit: string }[]): Set<string> | undefined {
  if (list === undefined || list.trim() === '') return undefined;
  const known = new Set([...Object.keys(LABELS), ...baselines.flatMap(({ commit }) => [`node@${commit}`, `express@${commit}`])]);
  const ids = new Set<string>();
  for (const name of list.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
    const commits = name === 'baselines' ? baselines.map(({ commit }) => commit) : baselines.some(({ commit }) => commit === name) ? [name] : [];
    if (commits.length > 0) for (const commit of commits) ids.add(`node@${commit}`).add(`express@${commit}`);
    else if (known.has(name)) ids.add(name);
    else throw new Error(`BENCH_CONTENDERS: unknown ${name}; the contenders are ${[...known].join(', ')}, a baseline's commit or baselines`);
  }
  return ids;
}

export function contenders(kind: Kind, nodeRed: NodeRed, baselines: readonly BuiltBaseline[], chosen: Set<string> | undefined): SpeedContender[] {
  return all(kind, nodeRed, baselines).filter(({ id }) => chosen === undefined || chosen.has(id));
}
