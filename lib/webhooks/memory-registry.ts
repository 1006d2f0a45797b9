/**
 * The embedded registry. Static paths: a Map from path to a Map from method (constant time whatever the number of
 * webhooks). Dynamic paths: compiled once, bucketed by segment count and literal first segment, and tried only
 * when no static path matches, most literal segments first.
 */
import { WebhookConflictError, WebhookError } from './errors.js';
import { canonicalPath, compileDynamicPath, decodeRequestPath, pathShape, type CompiledPath } from './paths.js';
import { resolveWorkflowWebhooks } from './webhook-node.js';
import type {
  HttpMethod,
  RegisteredWebhook,
  WebhookKind,
  WebhookLookup,
  WebhookRegistry,
  WorkflowWebhooks,
} from './types.js';

interface DynamicRoute {
  shape: string;
  compiled: CompiledPath;
  byMethod: Map<HttpMethod, RegisteredWebhook>;
}

/** Literal first segment, or '' for templates that start with a parameter. */
type Bucket = Map<string, DynamicRoute[]>;

export class MemoryWebhookRegistry implements WebhookRegistry {
  readonly #staticRoutes = new Map<string, Map<HttpMethod, RegisteredWebhook>>();
  readonly #dynamicByShape = new Map<string, DynamicRoute>();
  readonly #dynamicBySegments = new Map<number, Bucket>();
  readonly #byWorkflow = new Map<string, RegisteredWebhook[]>();

  activate(workflow: WorkflowWebhooks): Promise<RegisteredWebhook[]> {
    try {
      return Promise.resolve(this.#activate(workflow));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  deactivate(workflowId: string): Promise<boolean> {
    return Promise.resolve(this.#remove(workflowId));
  }

  lookup(kind: WebhookKind, method: string, path: string): Promise<WebhookLookup> {
    try {
      return Promise.resolve(kind === 'production' ? this.#lookup(method, path) : { found: false, methods: [] });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The active workflows' webhooks, for introspection ("why is my address 404?"). */
  list(workflowId?: string): RegisteredWebhook[] {
    if (workflowId !== undefined) return [...(this.#byWorkflow.get(workflowId) ?? [])];
    return [...this.#byWorkflow.values()].flat();
  }

  #activate(workflow: WorkflowWebhooks): RegisteredWebhook[] {
    const webhooks = resolveWorkflowWebhooks(workflow);
    const compiled = new Map<string, CompiledPath>();
    const claimed = new Map<string, RegisteredWebhook>();
    // Check everything before touching the tables: activation is all or nothing.
    for (const webhook of webhooks) {
      const key = `${webhook.method} ${webhook.isDynamic ? pathShape(webhook.path) : webhook.path}`;
      const twin = claimed.get(key);
      if (twin !== undefined) throw conflictOf(twin, 'Two Webhook nodes of this workflow use the same path and method; change one of them.');
      claimed.set(key, webhook);
      const owner = this.#owner(webhook);
      if (owner !== undefined && owner.workflowId !== webhook.workflowId) throw conflictOf(owner);
      if (webhook.isDynamic && !compiled.has(webhook.path)) compiled.set(webhook.path, compileDynamicPath(webhook.path));
    }
    this.#remove(workflow.workflowId);
    for (const webhook of webhooks) {
      if (webhook.isDynamic) this.#addDynamic(webhook, compiled.get(webhook.path) as CompiledPath);
      else this.#addStatic(webhook);
    }
    this.#byWorkflow.set(workflow.workflowId, webhooks);
    return [...webhooks];
  }

  #owner(webhook: RegisteredWebhook): RegisteredWebhook | undefined {
    if (!webhook.isDynamic) return this.#staticRoutes.get(webhook.path)?.get(webhook.method);
    return this.#dynamicByShape.get(pathShape(webhook.path))?.byMethod.get(webhook.method);
  }

  #addStatic(webhook: RegisteredWebhook): void {
    let methods = this.#staticRoutes.get(webhook.path);
    if (methods === undefined) this.#staticRoutes.set(webhook.path, (methods = new Map()));
    methods.set(webhook.method, webhook);
  }

  #addDynamic(webhook: RegisteredWebhook, compiled: CompiledPath): void {
    const shape = pathShape(webhook.path);
    let route = this.#dynamicByShape.get(shape);
    if (route === undefined) {
      route = { shape, compiled, byMethod: new Map() };
      this.#dynamicByShape.set(shape, route);
      let bucket = this.#dynamicBySegments.get(compiled.segmentCount);
      if (bucket === undefined) this.#dynamicBySegments.set(compiled.segmentCount, (bucket = new Map()));
      const key = compiled.firstLiteral ?? '';
      const routes = bucket.get(key) ?? [];
      routes.push(route);
      // Most literal segments first; among equals, literals earlier in the path win ("a/:x" before ":x/b").
      routes.sort((a, b) => b.compiled.literalCount - a.compiled.literalCount || b.shape.localeCompare(a.shape));
      bucket.set(key, routes);
    }
    route.byMethod.set(webhook.method, webhook);
  }

  #remove(workflowId: string): boolean {
    const webhooks = this.#byWorkflow.get(workflowId);
    if (webhooks === undefined) return false;
    for (const webhook of webhooks) {
      if (webhook.isDynamic) this.#removeDynamic(webhook);
      else {
        const methods = this.#staticRoutes.get(webhook.path);
        methods?.delete(webhook.method);
        if (methods?.size === 0) this.#staticRoutes.delete(webhook.path);
      }
    }
    this.#byWorkflow.delete(workflowId);
    return true;
  }

  #removeDynamic(webhook: RegisteredWebhook): void {
    const shape = pathShape(webhook.path);
    const route = this.#dynamicByShape.get(shape);
    if (route === undefined) return;
    route.byMethod.delete(webhook.method);
    if (route.byMethod.size > 0) return;
    this.#dynamicByShape.delete(shape);
    const bucket = this.#dynamicBySegments.get(route.compiled.segmentCount);
    const key = route.compiled.firstLiteral ?? '';
    const routes = bucket?.get(key)?.filter((candidate) => candidate !== route) ?? [];
    if (routes.length > 0) bucket?.set(key, routes);
    else bucket?.delete(key);
  }

  #lookup(method: string, rawPath: string): WebhookLookup {
    const path = decodeRequestPath(rawPath);
    const methods = this.#staticRoutes.get(path.decoded);
    const hit = methods?.get(method as HttpMethod);
    if (hit !== undefined) return { found: true, webhook: hit, params: {} };
    const allowed = new Set<HttpMethod>(methods?.keys());
    const bucket = this.#dynamicBySegments.get(path.segments.length);
    if (bucket !== undefined) {
      const canonical = canonicalPath(path.segments);
      for (const route of candidates(bucket, path.segments[0] ?? '')) {
        const matched = route.compiled.match(canonical);
        if (matched === false) continue;
        const webhook = route.byMethod.get(method as HttpMethod);
        if (webhook !== undefined) return { found: true, webhook, params: { ...matched.params } };
        for (const other of route.byMethod.keys()) allowed.add(other);
      }
    }
    return { found: false, methods: [...allowed] };
  }
}

function* candidates(bucket: Bucket, first: string): Generator<DynamicRoute> {
  yield* bucket.get(first) ?? [];
  if (first !== '') yield* bucket.get('') ?? [];
}

function conflictOf(owner: RegisteredWebhook, hint?: string): WebhookError {
  return new WebhookConflictError(
    {
      method: owner.method,
      path: owner.path,
      workflowId: owner.workflowId,
      workflowName: owner.workflowName,
      nodeName: owner.nodeName,
    },
    hint,
  );
}
