/**
 * What a Webhook node's parameters become at activation (lib/webhooks/registry/resolve-workflow.ts): methods,
 * response code in both layouts, property names trimmed or defaulted, options of the wrong type refused, the node's
 * path, and the refusals of a malformed workflow with WEBHOOK_INVALID_NODE (never a TypeError from deeper down).
 */
import { expect } from 'chai';
import type { WebhookNode, WorkflowWebhooks } from '../../../lib/core/types.js';
import {
  nodeWarnings, resolveMethods, resolveParameters, resolvePath, resolveWorkflowWebhooks,
} from '../../../lib/webhooks/registry/resolve-workflow.js';
import { refusal } from '../../support/refusal.js';

function node(parameters: Record<string, unknown>, extra: Partial<WebhookNode> = {}): WebhookNode {
  return { name: 'Hook', parameters: { path: 'hook', ...parameters } as WebhookNode['parameters'], ...extra };
}


const refused = (parameters: Record<string, unknown>): unknown => refusal(() => resolveParameters(node(parameters)));

describe('resolving a Webhook node', () => {
  it('reads one method in any letter case and white space', () => {
    expect(resolveMethods(node({ httpMethod: ' post ' }))).to.deep.equal(['POST']);
    expect(refusal(() => resolveMethods(node({ httpMethod: 'FETCH' })))).to.equal('WEBHOOK_INVALID_NODE');
  });

  it('gives the default methods when multiple methods are on and the list is empty', () => {
    expect(resolveMethods(node({ multipleMethods: true, httpMethod: [] }))).to.deep.equal(['GET', 'POST']);
    expect(resolveMethods(node({ multipleMethods: true, httpMethod: ['put', 'DELETE'] }))).to.deep.equal(['PUT', 'DELETE']);
  });

  it('refuses a multipleMethods that is not a boolean', () => {
    expect(refusal(() => resolveMethods(node({ multipleMethods: 'yes', httpMethod: 'GET' })))).to.equal('WEBHOOK_INVALID_NODE');
  });

  it('refuses a response mode, data or authentication that is not one of the listed ones', () => {
    expect(refused({ responseMode: 'whenever' })).to.equal('WEBHOOK_INVALID_NODE');
    expect(refused({ responseData: 42 })).to.equal('WEBHOOK_INVALID_NODE');
    expect(refused({ authentication: 'magic' })).to.equal('WEBHOOK_INVALID_NODE');
    expect(resolveParameters(node({ responseMode: 'lastNode' })).responseMode).to.equal('lastNode');
  });

  it('takes a top-level response code from 100 to 599 as a whole number only', () => {
    for (const code of [100, 201, 599]) expect(resolveParameters(node({ responseCode: code })).responseCode).to.equal(code);
    for (const code of [99, 600, 200.5, '200', null]) expect(refused({ responseCode: code }), String(code)).to.equal('WEBHOOK_INVALID_NODE');
  });

  it('reads the response code of later node versions from options, a listed code or a custom one', () => {
    const code = (responseCode: unknown): number => resolveParameters(node({ options: { responseCode } })).responseCode;
    expect(code({ values: { responseCode: 204 } })).to.equal(204);
    expect(code({ values: { responseCode: 'customCode', customCode: 418 } })).to.equal(418);
    expect(code({ values: {} })).to.equal(200);
    expect(resolveParameters(node({ options: {} })).responseCode).to.equal(200);
    expect(resolveParameters(node({ responseCode: 202, options: { responseCode: { values: { responseCode: 204 } } } })).responseCode).to.equal(202);
  });

  it('refuses an options.responseCode not stored as the node stores it', () => {
    for (const responseCode of [null, 'x', {}, { values: null }, { values: [] }, { values: 'x' }, { values: { responseCode: 'customCode' } }]) {
      expect(refused({ options: { responseCode } }), JSON.stringify(responseCode)).to.equal('WEBHOOK_INVALID_NODE');
    }
  });

  it('refuses options that are not an object, and option flags that are not booleans', () => {
    expect(refused({ options: 'rawBody' })).to.equal('WEBHOOK_INVALID_NODE');
    expect(refused({ options: ['rawBody'] })).to.equal('WEBHOOK_INVALID_NODE');
    expect(refused({ options: { rawBody: 'yes' } })).to.equal('WEBHOOK_INVALID_NODE');
    expect(resolveParameters(node({ options: { rawBody: true } })).rawBody).to.equal(true);
  });

  it('trims property names and content type, and a blank one means its default', () => {
    const trimmed = resolveParameters(node({ options: {
      responsePropertyName: ' result ', responseContentType: ' text/plain ', binaryPropertyName: ' upload ',
      responseBinaryPropertyName: ' picture ',
    } }));
    expect(trimmed).to.include({
      responsePropertyName: 'result', responseContentType: 'text/plain', binaryPropertyName: 'upload', responseBinaryPropertyName: 'picture',
    });
    const blank = resolveParameters(node({ options: {
      responsePropertyName: '  ', responseContentType: '  ', binaryPropertyName: '  ', responseBinaryPropertyName: '  ',
    } }));
    expect(blank).to.include({ responsePropertyName: 'data', responseBinaryPropertyName: 'data' });
    expect(blank.responseContentType).to.equal(undefined);
    expect(blank.binaryPropertyName).to.equal(undefined);
  });

  it('prefers the top-level responseBinaryPropertyName to the one among options', () => {
    const both = resolveParameters(node({ responseBinaryPropertyName: 'top', options: { responseBinaryPropertyName: 'option' } }));
    expect(both.responseBinaryPropertyName).to.equal('top');
    expect(resolveParameters(node({})).responseBinaryPropertyName).to.equal('data');
  });

  it('reports each security policy header it leaves out as a dropped-header warning', () => {
    const warnings = nodeWarnings('wf', node({ options: { responseHeaders: { entries: [{ name: 'Strict-Transport-Security', value: 'max-age=1' }] } } }));
    expect(warnings.map(({ code, workflowId, nodeName, path }) => ({ code, workflowId, nodeName, path }))).to.deep.equal([
      { code: 'dropped-header', workflowId: 'wf', nodeName: 'Hook', path: 'options.responseHeaders' },
    ]);
  });

  it('refuses a path that is not text or holds a NUL byte', () => {
    expect(refusal(() => resolvePath(node({ path: 42 })))).to.equal('WEBHOOK_INVALID_NODE');
    expect(refusal(() => resolvePath(node({ path: 'a\0b' })))).to.equal('WEBHOOK_INVALID_NODE');
    expect(resolvePath(node({ path: 'orders/:id' }, { webhookId: '/abc/' }))).to.equal('abc/orders/:id');
  });
});

describe('resolving a workflow', () => {
  const resolve = (workflow: unknown): unknown => refusal(() => resolveWorkflowWebhooks(workflow as WorkflowWebhooks));

  it('refuses what is not a workflow with a non-empty workflowId', () => {
    for (const workflow of [null, 'wf', { nodes: [] }, { workflowId: '', nodes: [] }, { workflowId: 7, nodes: [] }]) {
      expect(resolve(workflow), JSON.stringify(workflow)).to.equal('WEBHOOK_INVALID_NODE');
    }
    expect(resolve({ workflowId: 'wf', nodes: [] })).to.equal('accepted');
  });

  it('refuses a node without a name or a parameters object', () => {
    for (const bad of [null, { parameters: { path: 'a' } }, { name: 5, parameters: { path: 'a' } }, { name: 'n' }, { name: 'n', parameters: null }, { name: 'n', parameters: 'path=a' }]) {
      expect(resolve({ workflowId: 'wf', nodes: [bad] }), JSON.stringify(bad)).to.equal('WEBHOOK_INVALID_NODE');
    }
  });
});
