/**
 * Queue mode's failed runs: the jobs out of attempts with their error and attempt count, a retry, and a job's
 * state afterwards. The trigger item stays out of every answer: it holds whatever the caller sent.
 */
import type { ConsoleQueue } from '../options.js';
import type { ConsoleEvent, FailedJobDto, FailedJobListing, JobStateDto } from '../protocol.js';
import { notFound, sendJson } from './answer.js';
import { readJsonBody } from './json-body.js';
import type { Route } from './router.js';

const PAGE = 100;

function queueOf(queue: ConsoleQueue | undefined): ConsoleQueue {
  if (queue === undefined) {
    throw notFound('This console was given no queue, so it has no failed runs to show.',
      'In queue mode, pass createWebhookConsole({ queue }) with the WebhookQueue of workflow-webhooks/queue.');
  }
  return queue;
}

type FailedJob = Awaited<ReturnType<ConsoleQueue['failed']>>[number];

function failedJobDto(job: FailedJob): FailedJobDto {
  const { data } = job;
  const dto: FailedJobDto = {
    jobId: job.jobId, workflowId: data.workflowId, nodeName: data.nodeName, method: data.method, callId: data.callId,
    attemptsMade: job.attemptsMade, storedAt: job.storedAt,
  };
  if (data.workflowName !== undefined) dto.workflowName = data.workflowName;
  if (data.responseMode === 'onReceived' || data.responseMode === 'lastNode' || data.responseMode === 'responseNode') dto.responseMode = data.responseMode;
  if (job.failedReason !== undefined) dto.failedReason = job.failedReason;
  if (job.finishedAt !== undefined) dto.finishedAt = job.finishedAt;
  return dto;
}

export function jobRoutes(given: ConsoleQueue | undefined, send: (event: ConsoleEvent) => void): Route[] {
  return [
    {
      method: 'GET', path: '/api/failed-jobs', handle: async ({ res }) => {
        const listing: FailedJobListing = { jobs: (await queueOf(given).failed({ start: 0, end: PAGE - 1 })).map(failedJobDto) };
        sendJson(res, 200, listing);
      },
    },
    {
      method: 'POST', path: '/api/failed-jobs/:jobId/retry', handle: async ({ req, res, params }) => {
        const queue = queueOf(given);
        await readJsonBody(req, 16 * 1024);
        const retried = await queue.retry(params.jobId as string);
        if (!retried) throw notFound(`No failed job ${params.jobId}: it was retried already, removed, or never failed.`);
        send({ type: 'jobs' });
        sendJson(res, 200, { retried });
      },
    },
    {
      method: 'GET', path: '/api/jobs/:jobId', handle: async ({ res, params }) => {
        const status = await queueOf(given).status(params.jobId as string);
        if (status === undefined) throw notFound(`No job ${params.jobId}.`);
        const dto: JobStateDto = { jobId: status.jobId, state: status.state, attemptsMade: status.attemptsMade };
        if (status.failedReason !== undefined) dto.failedReason = status.failedReason;
        if (status.finishedAt !== undefined) dto.finishedAt = status.finishedAt;
        sendJson(res, 200, dto);
      },
    },
  ];
}
