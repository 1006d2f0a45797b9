/**
 * Workflows in the shape the known platform exports them (editor Download / CLI export): every field it writes,
 * parameters left out at their defaults, node versions 1, 1.1, 2 and 2.1 with each version's own parameter layout,
 * and nodes of other types beside the triggers (an FTP node with a `path` parameter among them).
 */
import type { WorkflowExport } from '../../lib/index.js';

const META = { templateCredsSetupCompleted: true, instanceId: '8e0a7c1f2d4b6a9e0c3f5d7b9a1c3e5f7a9b1d3f5e7c9a1b3d5f7e9c1a3b5d7f' };

/** A shop's intake: version 2.1 with the response code of later versions, and an FTP node that must stay a node. */
export const ORDERS_EXPORT: WorkflowExport = {
  name: 'Orders intake',
  nodes: [
    {
      parameters: {
        httpMethod: 'POST',
        path: 'orders',
        options: { responseCode: { values: { responseCode: 201 } } },
      },
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2.1,
      position: [-220, 40],
      id: '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      name: 'Webhook',
      webhookId: 'b7a1c2d3-e4f5-4061-8293-a4b5c6d7e8f9',
    },
    {
      parameters: { operation: 'list', path: '/incoming' },
      type: 'n8n-nodes-base.ftp',
      typeVersion: 1,
      position: [0, 40],
      id: '0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f0',
      name: 'FTP',
      credentials: { ftp: { id: 'Qw3rTy', name: 'FTP account' } },
    },
    {
      parameters: {
        httpMethod: 'POST',
        path: 'orders-old',
        responseMode: 'lastNode',
        options: {},
      },
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [-220, 240],
      id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      name: 'Old intake',
      webhookId: 'c8b2d3e4-f5a6-4172-93a4-b5c6d7e8f901',
      disabled: true,
    },
  ],
  pinData: {},
  connections: { Webhook: { main: [[{ node: 'FTP', type: 'main', index: 0 }]] } },
  active: true,
  settings: { executionOrder: 'v1' },
  versionId: '2d4f6a8c-0e1b-4d3f-a5c7-e9b1d3f5a7c9',
  meta: META,
  id: 'Xk3kP0xYz12AbCdE',
  tags: [],
};

/** Version 1: a file drop with `binaryData`, a top-level response code. */
export const UPLOAD_EXPORT: WorkflowExport = {
  name: 'Scanner upload',
  nodes: [{
    parameters: {
      httpMethod: 'POST',
      path: 'scans',
      responseCode: 202,
      options: { binaryData: true, binaryPropertyName: 'scan' },
    },
    type: 'n8n-nodes-base.webhook',
    typeVersion: 1,
    position: [0, 0],
    id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b',
    name: 'Scanner',
    webhookId: 'd9c3e4f5-a6b7-4283-a4b5-c6d7e8f90a12',
  }],
  connections: {},
  active: false,
  settings: { executionOrder: 'v1' },
  id: 'Up1oadScansWf001',
};

/** Version 1.1: an HTML page answered by the last node, with the version's top-level response code. */
export const PAGE_EXPORT: WorkflowExport = {
  name: 'Consent page',
  nodes: [{
    parameters: {
      path: 'consent',
      responseMode: 'lastNode',
      responseCode: 203,
      options: { responseContentType: 'text/html', responsePropertyName: 'page' },
    },
    type: 'n8n-nodes-base.webhook',
    typeVersion: 1.1,
    position: [0, 0],
    id: '3f4a5b6c-7d8e-4f9a-8b1c-2d3e4f5a6b7c',
    name: 'Consent form',
    webhookId: 'e0d4f5a6-b7c8-4394-b5c6-d7e8f90a1b23',
  }],
  connections: {},
  id: 'C0nsentPageWf002',
};

/** Version 2: a login that sets a cookie with a custom code, and a header only the host may set. */
export const LOGIN_EXPORT: WorkflowExport = {
  name: 'Magic link login',
  nodes: [{
    parameters: {
      httpMethod: 'POST',
      path: 'login',
      responseMode: 'lastNode',
      options: {
        responseCode: { values: { responseCode: 'customCode', customCode: 299 } },
        responseHeaders: {
          entries: [
            { name: 'Set-Cookie', value: 'session=abc123; Path=/; HttpOnly' },
            { name: 'Set-Cookie', value: 'theme=dark; Path=/' },
            { name: 'Content-Security-Policy', value: "default-src *" },
          ],
        },
      },
    },
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2,
    position: [0, 0],
    id: '4a5b6c7d-8e9f-4a0b-9c2d-3e4f5a6b7c8d',
    name: 'Login',
    webhookId: 'f1e5a6b7-c8d9-44a5-86d7-e8f90a1b2c34',
    credentials: { httpHeaderAuth: { id: 'hdr01', name: 'Login header' } },
  }],
  connections: {},
  id: 'L0ginMagicWf0003',
};

/** Version 2.1: two methods on a dynamic path, which the platform prefixes with the node's webhookId. */
export const PROFILE_EXPORT: WorkflowExport = {
  name: 'Profiles',
  nodes: [{
    parameters: {
      multipleMethods: true,
      httpMethod: ['GET', 'PUT'],
      path: 'users/:id',
      responseMode: 'lastNode',
      options: { responseCode: { values: { responseCode: 200 } } },
    },
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2.1,
    position: [0, 0],
    id: '5b6c7d8e-9f0a-4b1c-8d3e-4f5a6b7c8d9e',
    name: 'Profile',
    webhookId: 'a2f6b7c8-d9e0-45b6-97e8-f90a1b2c3d45',
  }],
  connections: {},
  id: 'Pr0filesWf000004',
};
