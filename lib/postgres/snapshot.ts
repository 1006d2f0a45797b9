/**
 * One consistent read of everything an instance serves (REPEATABLE READ, read only): the active workflows (resolved
 * again here, as on every instance), the live test listens, the database's clock, and the log version the snapshot
 * stands at, so reading the log on from there misses nothing and repeats nothing.
 */
import type { WorkflowWebhooks } from '../core/types.js';
import type { RegisteredWebhook } from '../webhooks/registry/contract.js';
import { resolveWorkflowWebhooks } from '../webhooks/registry/resolve-workflow.js';
import type { ListenRecord } from '../webhooks/registry/shared/listen-mirror.js';
import type { PostgresLink } from './pool.js';

export interface Snapshot {
  version: number;
  /** The database's clock when the snapshot was taken. */
  now: number;
  workflows: Map<string, { workflow: WorkflowWebhooks; webhooks: RegisteredWebhook[] }>;
  listens: ListenRecord[];
}

/** Parses each row's JSON column; a row this version cannot read is reported and left out. */
function parsed<T>(rows: Array<Record<string, unknown>>, column: string, what: string, report: (error: unknown, during: string) => void): Array<[string, T]> {
  return rows.flatMap((row) => {
    const id = String(row.workflow_id ?? row.listen_id);
    try {
      return [[id, JSON.parse(String(row[column])) as T] as [string, T]];
    } catch (error) {
      report(error, `loading ${what} "${id}"`);
      return [];
    }
  });
}

export async function loadSnapshot(link: PostgresLink, schema: string, report: (error: unknown, during: string) => void): Promise<Snapshot> {
  const s = schema;
  const rows = await link.transaction(async (sql) => {
    await sql('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const state = await sql(`SELECT version, ${s}.now_ms() AS now FROM ${s}.log_state`);
    const now = Number(state.rows[0]?.now);
    const workflows = await sql(`SELECT workflow_id, workflow FROM ${s}.workflows`);
    const listens = await sql(`SELECT listen_id, record FROM ${s}.listens WHERE expires_at >= $1`, [now]);
    return { result: { version: Number(state.rows[0]?.version), now, workflows: workflows.rows, listens: listens.rows } };
  }, 'loading the webhooks');
  const workflows: Snapshot['workflows'] = new Map();
  for (const [id, workflow] of parsed<WorkflowWebhooks>(rows.workflows, 'workflow', 'workflow', report)) {
    try {
      workflows.set(id, { workflow, webhooks: resolveWorkflowWebhooks(workflow) });
    } catch (error) {
      report(error, `loading workflow "${id}"`);
    }
  }
  const listens = parsed<ListenRecord>(rows.listens, 'record', 'test listen', report).map(([, record]) => record);
  return { version: rows.version, now: rows.now, workflows, listens };
}
