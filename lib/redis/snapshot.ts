/**
 * One atomic read of everything an instance serves: the active workflows (resolved again here, as on every
 * instance), the live test listens, and the log position the snapshot stands at, so reading the log on from there
 * misses nothing and repeats nothing.
 */
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import type { RegisteredWebhook } from '../webhooks/registry/contract.js';
import type { WorkflowWebhooks } from '../core/types.js';
import type { RegistryKeys } from './keys.js';
import type { RedisLink } from './link.js';
import type { ListenRecord } from '../webhooks/registry/shared/listen-mirror.js';
import type { LogPosition } from './log-reader.js';
import { SNAPSHOT } from './scripts.js';

export interface Snapshot {
  epoch: string;
  position: LogPosition;
  /** Redis' clock when the snapshot was taken. */
  redisNow: number;
  workflows: Map<string, { workflow: WorkflowWebhooks; webhooks: RegisteredWebhook[] }>;
  listens: ListenRecord[];
}

function pairs(flat: unknown): [string, string][] {
  const list = Array.isArray(flat) ? (flat as string[]) : [];
  const result: [string, string][] = [];
  for (let index = 0; index + 1 < list.length; index += 2) result.push([list[index] as string, list[index + 1] as string]);
  return result;
}

export async function loadSnapshot(link: RedisLink, keys: RegistryKeys, report: (error: Error, during: string) => void): Promise<Snapshot> {
  const reply = await link.script(SNAPSHOT, [keys.epoch, keys.version, keys.log, keys.workflows, keys.listens], [], 'loading the webhooks') as unknown[];
  const workflows: Snapshot['workflows'] = new Map();
  for (const [workflowId, json] of pairs(reply[4])) {
    try {
      const workflow = JSON.parse(json) as WorkflowWebhooks;
      workflows.set(workflowId, { workflow, webhooks: resolveWorkflowWebhooks(workflow) });
    } catch (error) {
      report(error as Error, `loading workflow "${workflowId}"`);
    }
  }
  const listens: ListenRecord[] = [];
  for (const [listenId, json] of pairs(reply[5])) {
    try {
      listens.push(JSON.parse(json) as ListenRecord);
    } catch (error) {
      report(error as Error, `loading test listen "${listenId}"`);
    }
  }
  return {
    epoch: String(reply[0]),
    position: { version: Number(reply[1]), id: String(reply[2]) },
    redisNow: Number(reply[3]),
    workflows,
    listens,
  };
}
