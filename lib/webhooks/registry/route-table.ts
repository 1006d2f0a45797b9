/**
 * One table of webhook routes. Static paths: a Map from path to a Map from method (constant time whatever the
 * number of webhooks). Dynamic paths: compiled once, bucketed by segment count and literal first segment, and
 * tried only when no static path matches, most literal segments first. The table holds no policy: who may own an
 * address is the registry's business.
 */
import { canonicalPath, compileDynamicPath, decodeRequestPath, isDecodedAlready, pathShape, segmentsOf, type CompiledPath } from './paths.js';
import type { HttpMethod } from '../../core/types.js';
import type { RegisteredWebhook, WebhookLookup } from './contract.js';

interface DynamicRoute {
  shape: string;
  compiled: CompiledPath;
  byMethod: Map<HttpMethod, RegisteredWebhook>;
}

/** Literal first segment, or '' for templates that start with a parameter. */
type Bucket = Map<string, DynamicRoute[]>;


/** The key two webhooks clash on: method and path, with dynamic parameter names erased. */
export function routeKey(webhook: Pick<RegisteredWebhook, 'method' | 'path' | 'isDynamic'>): string {
  return `${webhook.method} ${webhook.isDynamic ? pathShape(webhook.path) : webhook.path}`;
}

/** The webhooks of one static path by method: a prototype-less object is lighter than a Map at 100 000 paths. */
type Methods = Partial<Record<HttpMethod, RegisteredWebhook>>;

function methodsOf(methods: Methods | undefined): HttpMethod[] {
  return methods === undefined ? [] : (Object.keys(methods) as HttpMethod[]);
}

export class RouteTable {
  readonly #staticRoutes = new Map<string, Methods>();
  readonly #dynamicByShape = new Map<string, DynamicRoute>();
  readonly #dynamicBySegments = new Map<number, Bucket>();

  /** Compiles what a set of webhooks needs before any is added, so a bad path fails the whole set. */
  static compile(webhooks: readonly RegisteredWebhook[]): Map<string, CompiledPath> {
    const compiled = new Map<string, CompiledPath>();
    for (const webhook of webhooks) {
      if (webhook.isDynamic && !compiled.has(webhook.path)) compiled.set(webhook.path, compileDynamicPath(webhook.path));
    }
    return compiled;
  }

  /** The webhook holding the same method and path (shape), if any. */
  owner(webhook: RegisteredWebhook): RegisteredWebhook | undefined {
    if (!webhook.isDynamic) return this.#staticRoutes.get(webhook.path)?.[webhook.method];
    return this.#dynamicByShape.get(pathShape(webhook.path))?.byMethod.get(webhook.method);
  }

  /**
   * Adds a webhook, replacing the one on the same method and path (shape). `compiled` is what `compile()` gave for
   * its set; without it a dynamic path is compiled here.
   */
  add(webhook: RegisteredWebhook, compiled?: ReadonlyMap<string, CompiledPath>): void {
    if (!webhook.isDynamic) {
      let methods = this.#staticRoutes.get(webhook.path);
      if (methods === undefined) this.#staticRoutes.set(webhook.path, (methods = Object.create(null) as Methods));
      methods[webhook.method] = webhook;
      return;
    }
    const shape = pathShape(webhook.path);
    let route = this.#dynamicByShape.get(shape);
    if (route === undefined) {
      route = { shape, compiled: compiled?.get(webhook.path) ?? compileDynamicPath(webhook.path), byMethod: new Map() };
      this.#dynamicByShape.set(shape, route);
      let bucket = this.#dynamicBySegments.get(route.compiled.segmentCount);
      if (bucket === undefined) this.#dynamicBySegments.set(route.compiled.segmentCount, (bucket = new Map()));
      const key = route.compiled.firstLiteral ?? '';
      const routes = bucket.get(key) ?? [];
      routes.push(route);
      // Most literal segments first; among equals, literals earlier in the path win ("a/:x" before ":x/b").
      routes.sort((a, b) => b.compiled.literalCount - a.compiled.literalCount || b.shape.localeCompare(a.shape));
      bucket.set(key, routes);
    }
    route.byMethod.set(webhook.method, webhook);
  }

  /** Removes exactly this webhook (not another one that took its address since). */
  remove(webhook: RegisteredWebhook): void {
    if (!webhook.isDynamic) {
      const methods = this.#staticRoutes.get(webhook.path);
      if (methods?.[webhook.method] !== webhook) return;
      delete methods[webhook.method];
      if (methodsOf(methods).length === 0) this.#staticRoutes.delete(webhook.path);
      return;
    }
    const shape = pathShape(webhook.path);
    const route = this.#dynamicByShape.get(shape);
    if (route?.byMethod.get(webhook.method) !== webhook) return;
    route.byMethod.delete(webhook.method);
    if (route.byMethod.size > 0) return;
    this.#dynamicByShape.delete(shape);
    const bucket = this.#dynamicBySegments.get(route.compiled.segmentCount);
    const key = route.compiled.firstLiteral ?? '';
    const routes = bucket?.get(key)?.filter((candidate) => candidate !== route) ?? [];
    if (routes.length > 0) bucket?.set(key, routes);
    else bucket?.delete(key);
  }

  /** Finds the webhook for a request path (percent-encoded, no leading slash); throws REQUEST_INVALID_PATH. */
  lookup(method: string, rawPath: string): WebhookLookup {
    // Nearly every call: a path with nothing to decode or trim, registered as it was sent.
    if (isDecodedAlready(rawPath)) {
      const hit = this.#staticRoutes.get(rawPath)?.[method as HttpMethod];
      if (hit !== undefined) return { found: true, webhook: hit, params: {} };
    }
    const path = decodeRequestPath(rawPath);
    const methods = this.#staticRoutes.get(path.decoded);
    // Prototype-less: a method named "__proto__" or "constructor" finds nothing.
    const hit = methods?.[method as HttpMethod];
    if (hit !== undefined) return { found: true, webhook: hit, params: {} };
    const allowed = new Set<HttpMethod>(methodsOf(methods));
    if (this.#dynamicByShape.size === 0) return { found: false, methods: [...allowed] };
    const segments = segmentsOf(path);
    const bucket = this.#dynamicBySegments.get(segments.length);
    if (bucket !== undefined) {
      const canonical = canonicalPath(segments);
      for (const route of candidates(bucket, segments[0] ?? '')) {
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
