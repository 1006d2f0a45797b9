/**
 * The long-work pattern (spec 8): work that takes longer than the response deadline (100 s on the hosted
 * offering) is split over two webhooks. `POST reports` answers at once with a job id and a status address, then
 * keeps working; `GET reports/:jobId` reports progress, and the result once it is done. In process the jobs live in
 * this process's memory; in queue mode the report is a queue job, and its status is read from the job itself.
 */
import type { WebhookRegistry, WebhookRun, WorkflowWebhooks } from 'workflow-webhooks';
import type { QueuedWebhookRun, WebhookQueue } from 'workflow-webhooks/queue';
import type { Step } from './executor.js';

interface Job { id: string; status: 'running' | 'done' | 'cancelled'; progress: number; result?: unknown }

export interface LongWorkOptions {
  /** Time one of the report's ten steps takes; the example uses 1 s, tests less. */
  stepMs: number;
  /** Whether to activate the two workflows (default true); their steps are defined either way. */
  activate?: boolean;
  /** Queue mode: the queue whose jobs the reports are (any instance or worker can read a job's status). */
  jobs?: ReportJobs;
}

/** What the status webhook needs of a queue. */
export type ReportJobs = Pick<WebhookQueue, 'status'>;

/** The status of a report that runs as a queue job, read from the job: any worker can answer it. */
async function jobStatus(jobs: ReportJobs, jobId: string): Promise<Record<string, unknown>> {
  const job = await jobs.status(jobId);
  if (job === undefined) return { jobId, status: 'unknown' };
  const status = job.state === 'completed' ? 'done' : job.state === 'failed' ? 'failed' : 'running';
  const result = job.result?.items[0]?.json;
  return { jobId, status, progress: job.progress, ...(result === undefined ? {} : { result }) };
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
      const title = String((items[0]?.json.body as { title?: unknown }).title ?? 'Report');
      if (options.jobs !== undefined) {
        // Queue mode: the run is a job; its id is the report's, and its progress is the job's.
        const queued = call as QueuedWebhookRun;
        const statusUrl = String(items[0]?.json.webhookUrl).replace(/reports$/, `reports/${queued.jobId}`);
        call.respond({ status: 202, body: { jobId: queued.jobId, status: 'running', statusUrl } });
        for (let step = 1; step <= 10; step += 1) {
          await sleep(options.stepMs);
          await queued.progress(step * 10);
        }
        return [{ json: { rows: 1234, title } }];
      }
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
      job.result = { rows: 1234, title };
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
    async run(items) {
      const { jobId } = (items[0]?.json as { params: { jobId: string } }).params;
      if (options.jobs !== undefined) return [{ json: await jobStatus(options.jobs, jobId) }];
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
