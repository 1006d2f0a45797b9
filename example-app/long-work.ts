/**
 * The long-work pattern (spec 8): work that takes longer than the response deadline (100 s on the hosted
 * offering) is split over two webhooks. `POST reports` answers at once with a job id and a status address, then
 * keeps working; `GET reports/:jobId` reports progress, and the result once it is done.
 */
import type { WebhookRegistry, WebhookRun, WorkflowWebhooks } from 'workflow-webhooks';
import type { Step } from './executor.js';

interface Job { id: string; status: 'running' | 'done' | 'cancelled'; progress: number; result?: unknown }

export interface LongWorkOptions {
  /** Time one of the report's ten steps takes; the example uses 1 s, tests less. */
  stepMs: number;
  /** Whether to activate the two workflows (default true); their steps are defined either way. */
  activate?: boolean;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); });
});

/** Defines (and by default activates) the two workflows; resolves them, so that the host can activate them later. */
export async function addLongWork(registry: WebhookRegistry, steps: Map<string, Step[]>, options: LongWorkOptions): Promise<WorkflowWebhooks[]> {
  // Jobs live in this process: with several instances, poll the instance that started the job.
  const jobs = new Map<string, Job>();
  let counter = 0;

  const start: WorkflowWebhooks = {
    workflowId: 'report-start',
    workflowName: 'Start a report',
    nodes: [{ name: 'Webhook', parameters: { path: 'reports', httpMethod: 'POST', responseMode: 'responseNode' } }],
  };
  steps.set('report-start', [{
    type: 'code',
    async run(items, call: WebhookRun) {
      counter += 1;
      const job: Job = { id: `job-${counter}`, status: 'running', progress: 0 };
      jobs.set(job.id, job);
      const statusUrl = String(items[0]?.json.webhookUrl).replace(/reports$/, `reports/${job.id}`);
      // Answer now: the caller polls the status address instead of holding a connection open for minutes.
      call.respond({ status: 202, body: { jobId: job.id, status: job.status, statusUrl } });
      for (let step = 1; step <= 10; step += 1) {
        await sleep(options.stepMs);
        job.progress = step * 10;
      }
      job.status = 'done';
      job.result = { rows: 1234, title: String((items[0]?.json.body as { title?: unknown }).title ?? 'Report') };
      return [{ json: { ...job } }];
    },
  }]);

  const status: WorkflowWebhooks = {
    workflowId: 'report-status',
    workflowName: 'Report status',
    nodes: [{ name: 'Webhook', parameters: { path: 'reports/:jobId', httpMethod: 'GET', responseMode: 'lastNode' } }],
  };
  steps.set('report-status', [{
    type: 'code',
    run(items) {
      const { jobId } = (items[0]?.json as { params: { jobId: string } }).params;
      const job = jobs.get(jobId);
      return [{ json: job === undefined ? { jobId, status: 'unknown' } : { jobId, ...job } }];
    },
  }]);

  if (options.activate ?? true) {
    await registry.activate(start);
    await registry.activate(status);
  }
  return [start, status];
}
