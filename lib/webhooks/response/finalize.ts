/**
 * The last touch on every successful answer: the node's response headers, minus what the host forbids workflows to
 * set; a charset on text the middleware encodes as UTF-8; and a Content-Security-Policy sandbox wherever a browser
 * could render the body, so a workflow's output never runs as script with the host's cookies and storage.
 */
import type { ResolvedWebhookParameters } from '../registry/contract.js';
import type { ResponsePlan } from './build-plan.js';

/** What the host decided about the headers workflows set (option `forbiddenResponseHeaders`). */
export interface HeaderPolicy {
  /** Lower-cased names a workflow may not set, by the node's option or by respond(). */
  forbidden: ReadonlySet<string>;
  /** Hears each header left out, to tell the host once. */
  dropped(name: string): void;
}

export const OPEN_HEADER_POLICY: HeaderPolicy = Object.freeze({ forbidden: new Set<string>(), dropped: () => undefined });

/** Types a browser will not run as script on the host's origin; anything else gets a sandbox. */
const INERT_TYPE = /^(application\/([\w.+-]+\+)?json|text\/plain|text\/csv)\s*(;|$)/i;
const HTML_TYPE = /^(text\/html|application\/xhtml\+xml)\s*(;|$)/i;
/** Types whose text needs its charset said: text/*, XML and HTML. */
const TEXTUAL_TYPE = /^(text\/[\w.+-]+|[\w.+-]+\/([\w.+-]+\+)?xml|application\/xhtml\+xml)\s*(;|$)/i;

/**
 * An HTML page a workflow chose to send works as a page: forms, scripts, pop-ups and downloads run, but in an
 * opaque origin (no `allow-same-origin`), so they cannot read the host's cookies or storage, and they cannot
 * navigate the top window away from the host.
 */
export const HTML_SANDBOX = 'sandbox allow-downloads allow-forms allow-modals allow-orientation-lock allow-pointer-lock '
  + 'allow-popups allow-popups-to-escape-sandbox allow-presentation allow-scripts';

function allowed(headers: ResponsePlan['headers'], policy: HeaderPolicy): ResponsePlan['headers'] {
  if (policy.forbidden.size === 0) return headers;
  const kept: ResponsePlan['headers'] = {};
  for (const name in headers) {
    if (policy.forbidden.has(name)) policy.dropped(name);
    else kept[name] = headers[name] as string | string[];
  }
  return kept;
}

/** Adds the node's responseHeaders and the policies above to a successful answer. */
export function finalizeResponse(parameters: ResolvedWebhookParameters, plan: ResponsePlan, policy: HeaderPolicy): ResponsePlan {
  const headers = allowed({ ...plan.headers, ...parameters.responseHeaders }, policy);
  const hasBody = plan.body !== undefined || plan.file !== undefined;
  let type = headers['content-type'];
  if (typeof type === 'string' && typeof plan.body === 'string' && TEXTUAL_TYPE.test(type) && !/;\s*charset=/i.test(type)) {
    type = `${type}; charset=utf-8`;
    headers['content-type'] = type;
  }
  if (hasBody && (typeof type !== 'string' || !INERT_TYPE.test(type))) {
    const sandbox = typeof type === 'string' && HTML_TYPE.test(type) ? HTML_SANDBOX : 'sandbox';
    const own = headers['content-security-policy'];
    // A policy the workflow sent itself stays, and ours joins it: a browser enforces both.
    headers['content-security-policy'] = typeof own === 'string' && own.trim() !== '' ? `${own}, ${sandbox}` : sandbox;
  }
  return { ...plan, headers };
}
