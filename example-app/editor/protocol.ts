/**
 * What the editor page and its server routes say to each other: the JSON of the API answers and of the
 * server-sent events. Types only, so both the page's bundle and the server import it.
 */

/** One address of a Webhook node: its full URL and the methods it answers. */
export interface Address {
  methods: string[];
  url: string;
}

/** A node's production and test addresses; `issue` says why there are none (the parameters do not resolve). */
export interface Addresses {
  production: Address[];
  test: Address[];
  issue?: string;
}

export interface NodeSummary {
  name: string;
  parameters: Record<string, unknown>;
  addresses: Addresses;
}

export interface WorkflowSummary {
  workflowId: string;
  workflowName: string;
  /** Drafts only listen for test events; workflows can also be activated. */
  kind: 'workflow' | 'draft';
  active: boolean;
  nodes: NodeSummary[];
}

/** The answer of GET /api/editor/workflows. */
export interface WorkflowListing {
  workflows: WorkflowSummary[];
  /** The workflow the page opens when its address names none. */
  startWith?: string | undefined;
}

/** One value issue, as validateParameterValue reports it. */
export interface IssueDto {
  path: string;
  parameter: string;
  code: string;
  message: string;
}

/** An error answer of the API: a registry's refusal (code, message, hint) or invalid parameters (issues). */
export interface ApiError {
  code?: string;
  message: string;
  hint?: string;
  issues?: IssueDto[];
}

/** A binary entry as the page shows it: never its bytes. */
export interface BinaryDto {
  fileName?: string;
  mimeType: string;
  fileType?: string;
  fileSize?: string;
  bytes?: number;
}

export interface ItemDto {
  json: unknown;
  binary?: Record<string, BinaryDto>;
}

export interface ExecutionHintDto {
  message: string;
  type?: 'info' | 'warning' | 'danger';
  location?: 'inputPane' | 'outputPane' | 'ndv';
}

/** The run data a test listen captured. */
export interface RunDto {
  /** The trigger item(s) the call produced. */
  trigger: ItemDto[];
  /** The HTTP method and node of the call. */
  method: string;
  nodeName: string;
  /** The workflow's output, when it succeeded. */
  output?: { items: ItemDto[]; hints: ExecutionHintDto[] };
  /** Why the workflow failed, when it did. */
  error?: string;
}

/** The state of a workflow's test listen, sent whole on every change (event `state`). */
export type ListenState =
  | { state: 'idle' }
  | { state: 'listening'; listenId: string; expiresAt: number; secondsLeft: number; windowSeconds: number }
  | { state: 'running'; listenId: string; run: RunDto }
  | { state: 'ended'; listenId: string; status: 'received' | 'timedOut' | 'cancelled'; reason?: 'cancelled'; run?: RunDto };

/**
 * A run of the listen that waits for a call at its resume address (event `wait`; null when a new listen starts):
 * where to call it, how, until when, and whether a call resumed it or it expired.
 */
export interface WaitDto {
  waitId: string;
  /** `inRun`: the run waits inside (waitForCall); `suspended`: it ended, and a call starts it again (suspend). */
  form: 'inRun' | 'suspended';
  status: 'waiting' | 'resumed' | 'expired';
  resumeUrl: string;
  methods: string[];
  expiresAt: number;
}

/** Sent every second while listening (event `countdown`). */
export interface CountdownEvent {
  listenId: string;
  secondsLeft: number;
}

/** A lint finding of the preview, as validateNodeDescription reports it. */
export interface FindingDto {
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

/** One example of the preview's picker. */
export interface ExampleDto {
  id: string;
  title: string;
  description: unknown;
}
