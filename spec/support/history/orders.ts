/**
 * The order workflow of the recovery specs: a Webhook node answering with its last node, whose executor fails on
 * every fifth order until it is fixed and keeps a note of every run it made once fixed; and the orders themselves,
 * sent over real HTTP on loopback, a bounded number at a time.
 */
import { Agent, request } from 'node:http';
import type { RunReplay, WebhookExecutor, WorkflowWebhooks } from '../../../lib/index.js';

export const ORDER_WORKFLOW: WorkflowWebhooks = {
  workflowId: 'orders',
  nodes: [{ name: 'Order intake', parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'lastNode' } }],
};

/** The webhook's address after the middleware's mount. */
export const ORDERS_PATH = '/webhook/orders';

/** The bug: every fifth order (0, 5, 10, …) fails until the fix. */
export const failsBeforeFix = (n: number): boolean => n % 5 === 0;

/** A run the fixed workflow made: which order, and the replay it was, if one. */
export interface RunAfterFix {
  n: number;
  replay: RunReplay | undefined;
}

export interface OrderWorkflow {
  /** Give it to the middleware in process, or to the worker in queue mode. */
  readonly executor: WebhookExecutor;
  /** Fixes the bug (or, with false, ships it again): runs from then on are noted in `runsAfterFix`. */
  fixed: boolean;
  readonly runsAfterFix: RunAfterFix[];
}

export function orderWorkflow(): OrderWorkflow {
  const workflow: OrderWorkflow = {
    fixed: false,
    runsAfterFix: [],
    executor: async (run) => {
      const n = Number((run.items[0]?.json.body as { n?: unknown } | undefined)?.n);
      if (!workflow.fixed) {
        if (failsBeforeFix(n)) throw new Error(`order ${n}: the tax lookup failed`);
      } else {
        workflow.runsAfterFix.push({ n, replay: run.replay });
      }
      return { items: [{ json: { n, accepted: true } }] };
    },
  };
  return workflow;
}

/** Orders 0 … count - 1. */
export const orderNumbers = (count: number, first = 0): number[] => Array.from({ length: count }, (_, index) => first + index);

/** POSTs `{ n }` for each order to `url`, at most `atOnce` at a time on kept-alive connections; resolves each order's status. */
export async function sendOrders(url: string, numbers: readonly number[], atOnce = 20): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: atOnce });
  const statuses = new Map<number, number>();
  let next = 0;
  const sender = async (): Promise<void> => {
    while (next < numbers.length) {
      const n = numbers[next] as number;
      next += 1;
      statuses.set(n, await postOrder(agent, url, n));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(atOnce, numbers.length) }, sender));
  } finally {
    agent.destroy();
  }
  return statuses;
}

function postOrder(agent: Agent, url: string, n: number): Promise<number> {
  const body = JSON.stringify({ n });
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => { resolve(res.statusCode as number); });
      res.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The orders answered with each status: `{ 200: [...], 500: [...] }`, each list in order. */
export function byStatus(statuses: ReadonlyMap<number, number>): Record<number, number[]> {
  const grouped: Record<number, number[]> = {};
  for (const [n, status] of [...statuses].sort(([a], [b]) => a - b)) (grouped[status] ??= []).push(n);
  return grouped;
}
