/** Small builders for workflows and executors used across the specs. */
import type {
  ExecutionResult,
  WebhookNodeParameters,
  WebhookRun,
  WorkflowWebhooks,
} from '../../lib/index.js';

export function workflow(
  workflowId: string,
  parameters: WebhookNodeParameters,
  extra: Partial<WorkflowWebhooks> = {},
): WorkflowWebhooks {
  return { workflowId, nodes: [{ name: 'Webhook', parameters }], ...extra };
}

/** An executor that records its runs and answers with `output(run)` (default: the trigger items). */
export function recordingExecutor(output: (run: WebhookRun) => ExecutionResult | Promise<ExecutionResult> = (run) => ({ items: run.items })) {
  const runs: WebhookRun[] = [];
  const executor = async (run: WebhookRun): Promise<ExecutionResult> => {
    runs.push(run);
    return output(run);
  };
  return { runs, executor };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
