/**
 * lib/webhooks/run/execute.ts: what an executor may give back (checkResult), how its failures become one WebhookError
 * (a relayed failure stays as it was), and the events, report and listener that hear how a run ended.
 */
import { expect } from 'chai';
import { WebhookError } from '../../../lib/core/errors.js';
import type { CallEvents, EventInput } from '../../../lib/core/events.js';
import { checkResult, relayedFailure, reportedExecution } from '../../../lib/webhooks/run/execute.js';
import type { ExecutionResult, WebhookExecutor, WebhookRun } from '../../../lib/index.js';

/** What checkResult throws for `result`, or undefined when it accepts it. */
function refusal(result: unknown): { code?: unknown; message?: unknown; isWebhookError: boolean } | undefined {
  try {
    checkResult(result);
    return undefined;
  } catch (error) {
    return { code: (error as WebhookError).code, message: (error as Error).message, isWebhookError: error instanceof WebhookError };
  }
}

const run = { workflowId: 'wf', nodeName: 'Webhook', mode: 'production' } as WebhookRun;
const where = { workflowId: 'wf', nodeName: 'Webhook', mode: 'production' };

function recordedEvents(active = true): { events: CallEvents; heard: EventInput[] } {
  const heard: EventInput[] = [];
  return { heard, events: { active, emit: (event) => { heard.push(event); }, within: (work) => work() } };
}

describe('what an executor may return', () => {
  it('accepts items whose json is a plain object, with a binary object or none', () => {
    const items = [{ json: {} }, { json: { a: 1 }, binary: { data: { data: 'eA==', mimeType: 'text/plain' } } }];
    expect(checkResult({ items })).to.deep.equal({ items });
    expect(checkResult({ items: [] })).to.deep.equal({ items: [] });
  });

  it('refuses a result without an items array as WORKFLOW_INVALID_RESULT', () => {
    for (const result of [undefined, null, {}, { items: 'x' }, { items: { json: {} } }]) {
      expect(refusal(result), JSON.stringify(result)).to.deep.equal({
        code: 'WORKFLOW_INVALID_RESULT', message: 'The workflow did not return its output items.', isWebhookError: true,
      });
    }
  });

  it('refuses an item that is not an object with a json object, naming the item', () => {
    const bad: unknown[] = [null, 5, 'text', {}, { json: null }, { json: 'text' }, { json: [1, 2] }, { json: 7 }];
    for (const item of bad) {
      expect(refusal({ items: [{ json: { fine: true } }, item] }), JSON.stringify(item)).to.deep.equal({
        code: 'WORKFLOW_INVALID_RESULT', message: 'Output item 1 of the workflow is not { json: object }.', isWebhookError: true,
      });
    }
  });

  it('refuses an item whose binary is there but not an object', () => {
    for (const binary of [null, 'data', 3]) {
      expect(refusal({ items: [{ json: {}, binary }] })?.code, String(binary)).to.equal('WORKFLOW_INVALID_RESULT');
    }
  });

  it('passes hints on when each has a message', () => {
    const hints = [{ message: 'first' }, { message: 'second', location: 'outputPane' }];
    expect(checkResult({ items: [{ json: {} }], hints })).to.deep.equal({ items: [{ json: {} }], hints });
  });

  it('refuses hints that are not a list of { message }', () => {
    for (const hints of ['hint', {}, [null], [{}], [{ message: 1 }], [{ message: 'fine' }, { text: 'no message' }]]) {
      expect(refusal({ items: [], hints }), JSON.stringify(hints)).to.deep.equal({
        code: 'WORKFLOW_INVALID_RESULT', message: 'The workflow returned hints that are not [{ message }].', isWebhookError: true,
      });
    }
  });
});

describe('an executor that fails', () => {
  // Through reportedExecution, the one way the middleware and queue mode run an executor.
  const failure = (executor: WebhookExecutor): Promise<WebhookError> => reportedExecution({ run, events: recordedEvents(false).events, executor, report: () => undefined }).outcome.then(
    () => { throw new Error('the run should have failed'); },
    (error: WebhookError) => error,
  );

  it('throwing at once or rejecting: WORKFLOW_FAILED with what it threw as the cause', async () => {
    const cause = new Error('engine down');
    for (const executor of [() => { throw cause; }, () => Promise.reject(cause)] as WebhookExecutor[]) {
      const error = await failure(executor);
      expect([error.code, error.message, error.cause]).to.deep.equal(['WORKFLOW_FAILED', 'Error in workflow', cause]);
    }
  });

  it('rejecting with a WebhookError of its own: still wrapped as WORKFLOW_FAILED', async () => {
    const own = new WebhookError('INTERNAL_ERROR', 'inside the workflow');
    const error = await failure(() => Promise.reject(own));
    expect([error.code, error.cause]).to.deep.equal(['WORKFLOW_FAILED', own]);
  });

  it('relaying a failure judged elsewhere: answered as it was, not wrapped', async () => {
    const judged = relayedFailure(new WebhookError('WORKFLOW_INVALID_RESULT', 'judged by the worker'));
    expect(await failure(() => Promise.reject(judged))).to.equal(judged);
    expect(await failure(() => { throw judged; })).to.equal(judged);
  });

  it('resolving with a malformed result: WORKFLOW_INVALID_RESULT, not wrapped', async () => {
    const error = await failure(() => ({ items: [{ json: 'x' }] }) as unknown as ExecutionResult);
    expect(error.code).to.equal('WORKFLOW_INVALID_RESULT');
  });
});

describe('how a run\'s end is reported', () => {
  it('emits started, then executed with the number of items, and gives the output to the listener', async () => {
    const { events, heard } = recordedEvents();
    const settled: unknown[] = [];
    const reports: WebhookError[] = [];
    const result = await reportedExecution({
      run, events, executor: () => ({ items: [{ json: { a: 1 } }, { json: { b: 2 } }] }),
      report: (error) => reports.push(error), onSettled: (outcome) => settled.push(outcome),
    }).outcome;
    expect(heard).to.deep.equal([{ type: 'started', ...where }, { type: 'executed', ...where, items: 2 }]);
    expect(settled).to.deep.equal([{ output: result }]);
    expect(reports).to.deep.equal([]);
  });

  it('emits started, then failed with the error; reports it once and gives it to the listener', async () => {
    const { events, heard } = recordedEvents();
    const settled: unknown[] = [];
    const reports: WebhookError[] = [];
    const thrown = await reportedExecution({
      run, events, executor: () => { throw new Error('broken'); },
      report: (error) => reports.push(error), onSettled: (outcome) => settled.push(outcome),
    }).outcome.then(() => undefined, (error: WebhookError) => error);
    expect(thrown?.code).to.equal('WORKFLOW_FAILED');
    expect(heard).to.deep.equal([{ type: 'started', ...where }, { type: 'failed', ...where, error: thrown }]);
    expect(reports).to.deep.equal([thrown]);
    expect(settled).to.deep.equal([{ error: thrown }]);
  });

  it('emits nothing for a call nobody listens to', async () => {
    const { events, heard } = recordedEvents(false);
    await reportedExecution({ run, events, executor: () => ({ items: [] }), report: () => undefined }).outcome;
    expect(heard).to.deep.equal([]);
  });

  it('knows at once how a run that answered at once ended, and waits for one that answered with a promise', async () => {
    const now = reportedExecution({ run, events: recordedEvents().events, executor: () => ({ items: [] }), report: () => undefined });
    const later = reportedExecution({ run, events: recordedEvents().events, executor: () => Promise.resolve({ items: [] }), report: () => undefined });
    const threw = reportedExecution({ run, events: recordedEvents().events, executor: () => { throw new Error('x'); }, report: () => undefined });
    expect([now.settled, later.settled, threw.settled]).to.deep.equal([true, false, true]);
    await Promise.all([now.outcome, later.outcome, threw.outcome.catch(() => undefined)]);
  });

  it('reports a promised result that is malformed, or a rejection, once, as a failure', async () => {
    for (const executor of [() => Promise.resolve({ items: 'no' }), () => Promise.reject(new Error('down'))]) {
      const { events, heard } = recordedEvents();
      const reports: WebhookError[] = [];
      const error = await reportedExecution({ run, events, executor: executor as unknown as WebhookExecutor, report: (failure) => reports.push(failure) })
        .outcome.then(() => undefined, (thrown: WebhookError) => thrown);
      expect(reports).to.deep.equal([error]);
      expect(heard.map((event) => event.type)).to.deep.equal(['started', 'failed']);
    }
  });
});
