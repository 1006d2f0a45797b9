/**
 * lib/webhooks/run/report.ts: where a workflow's failure goes: onWorkflowError once, with where it failed and whether
 * the caller was answered, else the logger; a run that only obeyed the middleware's stop is not reported; respond()
 * of a node that does not answer with it is reported as WORKFLOW_INVALID_RESPONSE.
 */
import { expect } from 'chai';
import { WebhookError } from '../../../lib/core/errors.js';
import type { CallEvents } from '../../../lib/core/events.js';
import type { RegisteredWebhook } from '../../../lib/webhooks/registry/contract.js';
import type { InFlight } from '../../../lib/webhooks/run/in-flight.js';
import { CallState, stopRun } from '../../../lib/webhooks/run/call-state.js';
import { ignoreRespond, reporter, type FailureSinks, type WorkflowFailureContext } from '../../../lib/webhooks/run/report.js';

const webhook = { workflowId: 'wf', nodeName: 'Webhook' } as RegisteredWebhook;
const quiet: CallEvents = { active: false, emit: () => undefined, within: (work) => work() };

function newState(): CallState {
  return new CallState('call-7', quiet, { add: () => undefined, remove: () => undefined } as unknown as InFlight<CallState>);
}

interface Sinks { sinks: FailureSinks; failures: [WebhookError, WorkflowFailureContext][]; logged: [Record<string, unknown>, string | undefined][] }

function sinks(withHandler: boolean): Sinks {
  const failures: Sinks['failures'] = [];
  const logged: Sinks['logged'] = [];
  return {
    failures,
    logged,
    sinks: {
      onWorkflowError: withHandler ? (error, context) => { failures.push([error, context]); } : undefined,
      logger: { error: (fields, message) => { logged.push([fields, message]); }, warn: () => undefined },
    },
  };
}

const failure = (): WebhookError => new WebhookError('WORKFLOW_FAILED', 'Error in workflow', { cause: new Error('boom') });

describe('a workflow failure', () => {
  it('goes to onWorkflowError once, with where it failed and that the caller was not answered, and not to the logger', () => {
    const state = newState();
    const { sinks: given, failures, logged } = sinks(true);
    const error = failure();
    reporter(given, state, webhook, 'test')(error);
    expect(failures).to.deep.equal([[error, { workflowId: 'wf', nodeName: 'Webhook', mode: 'test', webhook, callId: 'call-7', answered: false }]]);
    expect(logged).to.deep.equal([]);
    expect(state.reported, 'the middleware does not log it again').to.equal(true);
  });

  it('says the caller was answered when it was', () => {
    const state = newState();
    state.status = 200;
    const { sinks: given, failures } = sinks(true);
    reporter(given, state, webhook, 'production')(failure());
    expect(failures[0]?.[1].answered).to.equal(true);
  });

  it('goes to the logger without onWorkflowError, saying what the caller is answered', () => {
    const state = newState();
    const { sinks: given, logged } = sinks(false);
    const error = failure();
    reporter(given, state, webhook, 'production')(error);
    expect(logged).to.have.length(1);
    const [fields, message] = logged[0] as [Record<string, unknown>, string];
    expect(fields).to.deep.include({ callId: 'call-7', workflowId: 'wf', nodeName: 'Webhook', mode: 'production' });
    expect(fields.err).to.deep.include({ code: 'WORKFLOW_FAILED', message: 'Error in workflow' });
    expect(message).to.equal('workflow failed; the caller is answered 500 WORKFLOW_FAILED');
    expect(state.reported).to.equal(true);
  });

  it('logged after the caller was answered says so', () => {
    const state = newState();
    state.status = 200;
    const { sinks: given, logged } = sinks(false);
    reporter(given, state, webhook, 'production')(failure());
    expect(logged[0]?.[1]).to.equal('workflow failed after its caller was answered');
  });

  it('is not reported when the run only obeyed the middleware\'s stop', () => {
    const state = newState();
    const reason = new WebhookError('SHUTTING_DOWN', 'stopped');
    stopRun(state, reason);
    const { sinks: given, failures, logged } = sinks(true);
    reporter(given, state, webhook, 'production')(new WebhookError('WORKFLOW_FAILED', 'Error in workflow', { cause: reason }));
    expect([failures, logged, state.reported]).to.deep.equal([[], [], false]);
  });
});

describe('respond() of a node that does not answer with it', () => {
  it('is reported as WORKFLOW_INVALID_RESPONSE, and ignored', () => {
    const reported: WebhookError[] = [];
    const respond = ignoreRespond((error) => reported.push(error));
    expect(respond({ body: 'ignored' })).to.equal(undefined);
    expect(reported.map((error) => error.code)).to.deep.equal(['WORKFLOW_INVALID_RESPONSE']);
    expect(reported[0]?.message).to.match(/responseMode is not "responseNode"/);
  });
});
