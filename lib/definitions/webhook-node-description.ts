/**
 * The Webhook trigger node's own description, written as property definitions. The validators check it in a test,
 * and the middleware takes its parameter defaults and the names of its options from it, so the two cannot drift.
 * Pure data: importing it pulls in no validator.
 */
import type { CollectionProperty, NodeDescription } from './types.js';

const METHOD_OPTIONS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'].map((method) => ({ name: method, value: method }));

const options: CollectionProperty = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add Option',
  default: {},
  options: [
    { displayName: 'Allowed Origins (CORS)', name: 'allowedOrigins', type: 'string', default: '*', description: 'Comma-separated origins allowed to call the address from a browser, or * for any' },
    { displayName: 'Field Name for Binary Data', name: 'binaryPropertyName', type: 'string', default: 'data', description: 'Binary property of a raw upload; multipart files become data0, data1, …' },
    { displayName: 'Ignore Bots', name: 'ignoreBots', type: 'boolean', default: false, description: 'Whether to answer link previewers and crawlers without running the workflow' },
    { displayName: 'IP(s) Allowlist', name: 'ipWhitelist', type: 'string', default: '', placeholder: 'e.g. 127.0.0.1, 10.0.0.0/8', description: 'Comma-separated addresses and CIDR ranges allowed to call; empty allows all' },
    {
      displayName: 'No Response Body', name: 'noResponseBody', type: 'boolean', default: false,
      description: 'Whether to answer with an empty body',
      displayOptions: { show: { '/responseMode': ['onReceived'] } },
    },
    { displayName: 'Raw Body', name: 'rawBody', type: 'boolean', default: false, description: 'Whether to keep the untouched request bytes as binary data next to the parsed body' },
    {
      displayName: 'Response Data', name: 'responseData', type: 'string', default: '', placeholder: 'success',
      description: 'A fixed text to answer with',
      displayOptions: { show: { '/responseMode': ['onReceived'] } },
    },
    {
      displayName: 'Response Content-Type', name: 'responseContentType', type: 'string', default: '', placeholder: 'application/xml',
      displayOptions: { show: { '/responseData': ['firstEntryJson'], '/responseMode': ['lastNode'] } },
    },
    {
      displayName: 'Response Headers', name: 'responseHeaders', type: 'fixedCollection', placeholder: 'Add Response Header', default: {},
      typeOptions: { multipleValues: true },
      options: [{
        name: 'entries',
        displayName: 'Entries',
        values: [
          { displayName: 'Name', name: 'name', type: 'string', default: '' },
          { displayName: 'Value', name: 'value', type: 'string', default: '' },
        ],
      }],
    },
    {
      displayName: 'Property Name', name: 'responsePropertyName', type: 'string', default: 'data',
      description: 'Name of the property of the first item whose value is the response',
      displayOptions: { show: { '/responseData': ['firstEntryJson'], '/responseMode': ['lastNode'] } },
    },
  ],
};

export const WEBHOOK_NODE_DESCRIPTION = {
  displayName: 'Webhook',
  name: 'webhook',
  version: 1,
  properties: [
    {
      displayName: 'Allow Multiple HTTP Methods', name: 'multipleMethods', type: 'boolean', default: false, isNodeSetting: true,
      description: 'Whether to allow the webhook to listen for more than one HTTP method',
    },
    {
      displayName: 'HTTP Method', name: 'httpMethod', type: 'options', default: 'GET', options: METHOD_OPTIONS,
      description: 'The HTTP method to listen to', displayOptions: { show: { multipleMethods: [false] } },
    },
    {
      displayName: 'HTTP Methods', name: 'httpMethod', type: 'multiOptions', default: ['GET', 'POST'], options: METHOD_OPTIONS,
      description: 'The HTTP methods to listen to; each has its own output', displayOptions: { show: { multipleMethods: [true] } },
    },
    { displayName: 'Path', name: 'path', type: 'string', default: '', placeholder: 'webhook', required: true, description: 'The path part of the webhook address; :name segments are dynamic' },
    {
      displayName: 'Authentication', name: 'authentication', type: 'options', default: 'none', noDataExpression: true,
      options: [
        { name: 'Basic Auth', value: 'basicAuth' },
        { name: 'Header Auth', value: 'headerAuth' },
        { name: 'JWT Auth', value: 'jwtAuth' },
        { name: 'None', value: 'none' },
        { name: 'Signature (signed webhooks)', value: 'signatureAuth', description: 'Verify the sender\'s HMAC signature: Standard Webhooks, GitHub, Stripe, Slack, Shopify or custom' },
      ],
    },
    {
      displayName: 'Response Mode', name: 'responseMode', type: 'options', default: 'onReceived', noDataExpression: true,
      options: [
        { name: 'Immediately', value: 'onReceived', description: 'As soon as the call arrives' },
        { name: 'When Last Node Finishes', value: 'lastNode', description: 'With the data of the last node executed' },
        { name: "Using 'Respond to Webhook' Node", value: 'responseNode', description: 'As the workflow says, through run.respond()' },
      ],
    },
    {
      displayName: 'Response Code', name: 'responseCode', type: 'number', default: 200, typeOptions: { minValue: 100, maxValue: 599 },
      displayOptions: { hide: { responseMode: ['responseNode'] } },
    },
    {
      displayName: 'Response Data', name: 'responseData', type: 'options', default: 'firstEntryJson',
      displayOptions: { show: { responseMode: ['lastNode'] } },
      options: [
        { name: 'All Entries', value: 'allEntries', description: 'All items of the last node, as an array' },
        { name: 'First Entry JSON', value: 'firstEntryJson', description: 'The JSON of the first item of the last node' },
        { name: 'First Entry Binary', value: 'firstEntryBinary', description: 'The binary data of the first item of the last node' },
        { name: 'No Response Body', value: 'noData', description: 'No body' },
      ],
    },
    {
      displayName: 'Property Name', name: 'responseBinaryPropertyName', type: 'string', default: 'data', required: true,
      description: 'Name of the binary property to return', displayOptions: { show: { responseData: ['firstEntryBinary'] } },
    },
    options,
  ],
} satisfies NodeDescription;

/** The default of a top-level parameter, for the variant shown with `multipleMethods` on or off. */
export function webhookParameterDefault(name: string, multipleMethods = false): unknown {
  const variant = WEBHOOK_NODE_DESCRIPTION.properties.find((property) => {
    if (property.name !== name) return false;
    const shown = (property as { displayOptions?: { show?: { multipleMethods?: boolean[] } } }).displayOptions?.show?.multipleMethods;
    return shown === undefined || shown.includes(multipleMethods);
  });
  return variant?.default;
}

/** The default of an option in the node's Options collection. */
export function webhookOptionDefault(name: string): unknown {
  return options.options.find((option) => option.name === name)?.default;
}

/** The names in the node's Options collection, the options an editor offers. */
export const WEBHOOK_OPTION_NAMES: readonly string[] = options.options.map((option) => option.name);

/** The node's top-level parameter names (`httpMethod` once, though its two variants are two definitions). */
export const WEBHOOK_PARAMETER_NAMES: readonly string[] = [...new Set(WEBHOOK_NODE_DESCRIPTION.properties.map((property) => property.name))];
