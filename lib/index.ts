/**
 * workflow-webhooks: the Webhook trigger of a workflow automation platform as one middleware for Express 4,
 * Express 5, Connect and node:http.
 * @module workflow-webhooks
 */
export { createWebhookMiddleware } from './webhooks/middleware.js';
export {
  describeWebhooks,
  type CredentialLookup,
  type DescribeWebhooksOptions,
  type OpenApiDocument,
  type OpenApiRouteOptions,
} from './webhooks/describe/index.js';
export { MemoryWebhookRegistry, type MemoryWebhookRegistryOptions } from './webhooks/registry/memory-registry.js';
export {
  fromWorkflowExport,
  type ExportedNode,
  type WorkflowExport,
  type WorkflowExportOptions,
} from './webhooks/registry/workflow-export.js';
// Building blocks for a registry of one's own (docs/workflows.md, "Write your own registry").
export { activationWarnings, resolveWorkflowWebhooks, WEBHOOK_NODE_TYPES } from './webhooks/registry/resolve-workflow.js';
export { RouteTable, routeKey } from './webhooks/registry/route-table.js';
export { TestListens } from './webhooks/registry/test-listens.js';
export {
  ERROR_CODES,
  PayloadInvalidError,
  WebhookConflictError,
  WebhookError,
  type WebhookConflict,
  type WebhookErrorCode,
} from './core/errors.js';
export { MethodNotAllowedError } from './webhooks/request/match.js';
export { handleClientError } from './webhooks/request/client-error.js';
export type {
  BasicAuthCredential,
  CredentialRequest,
  CredentialResolver,
  HeaderAuthCredential,
  JwtAuthCredential,
  SignatureAuthCredential,
  WebhookCredential,
} from './webhooks/guards/authenticate.js';
export type {
  WebhookLimitsOptions,
  WebhookMiddlewareOptions,
  WebhookUploadsOptions,
} from './webhooks/options.js';
export type { RateLimitOptions } from './webhooks/rate-limit/settings.js';
export type { WorkflowFailureContext } from './webhooks/run/report.js';
export type { ByteSize } from './core/option-checks.js';
export type { CallTelemetry, WebhookEvent, WebhookEventListener } from './core/events.js';
export type { AcceptedRun, HandOffContext, HandOffExecutor } from './webhooks/run/hand-off.js';
export type * from './core/types.js';
export type {
  RateLimitCharge, RateLimitKey, RateLimitPolicy, RateLimitResult, RateLimitSetting, ResolvedRateLimitPolicy,
} from './core/rate-limits.js';
export type * from './webhooks/registry/contract.js';
export type { JsonSchemaCheck, NamedSchemaCheck, SchemaCheck } from './webhooks/registry/payload-schemas.js';
export type { CompiledCheck, SchemaIssue } from './webhooks/registry/json-schema/compile.js';
export type * from './core/waits.js';
export type * from './core/history.js';
export type { HistoryOptions } from './webhooks/history/options.js';
export type { JobEncryptionOptions } from './core/sealing.js';
export { MemoryHistoryStore } from './webhooks/history/memory-store.js';
export type * from './core/schemas.js';
export type { WaitingMiddlewareOptions } from './webhooks/waiting/settings.js';
export { HTTP_METHODS, RESPONSE_DATA, RESPONSE_MODES, AUTHENTICATIONS, SIGNATURE_SCHEMES } from './core/types.js';
