/**
 * Where the Redis registry keeps its state: every key under the prefix, so one Redis can hold several registries
 * and a cleanup is one pattern. On Redis Cluster, give a prefix with a hash tag (`{workflow-webhooks}:`) so that
 * the scripts' keys share a slot.
 */
export interface RegistryKeys {
  /** String: a random id written when the store is first used; gone means Redis came back empty. */
  epoch: string;
  /**
   * String: the deployment's rate-limit digest key (base64), written by the first instance to load. Whoever may read
   * it can match the rate budgets' names against guessed callers: an ACL that lets a role read `rate:*` need not
   * give it this key.
   */
  digestKey: string;
  /** String: the number of the last change-log entry. */
  version: string;
  /** Stream: every change, in order, read by every instance. */
  log: string;
  /** Hash: workflowId → the workflow's JSON, for instances that load everything. */
  workflows: string;
  /** Hash: route key (`POST orders`) → the workflowId that holds it. */
  routes: string;
  /** Hash: workflowId → JSON list of its route keys. */
  workflowRoutes: string;
  /** Hash: listenId → the test listen's record (workflow, route keys, expiry). */
  listens: string;
  /** Hash: route key → the listenId listening there. */
  testRoutes: string;
  /** Hash: workflowId → its listenId (a workflow listens once at a time). */
  testWorkflows: string;
  /** String, expiring: a test call's run or outcome, relayed to the instance holding the listen. */
  relay(listenId: string, step: 'arrived' | 'settled'): string;
  /** String, expiring: a signed webhook's message id (its digest), remembered for every instance. */
  messageId(digest: string): string;
  /** Hash, expiring: a run's wait entry (`status`, `resumedAt`, the entry's JSON); the key's prefix is `waitPrefix`. */
  wait(waitId: string): string;
  waitPrefix: string;
  /** Sorted set: wait id → its expiry, for counting live waits and finding expired ones. */
  waits: string;
  /** String, expiring: written by each round of replica acknowledgement right before its WAIT (option `replicas`). */
  acks: string;
  /** String, expiring at the end of its window: a rate limit budget's count of calls (the id is a digest). */
  rateBudget(id: string): string;
  /** String, expiring: how many caller budgets a rate limit's scope (a digest) opened in its window. */
  rateOpened(scope: string): string;
}

export function registryKeys(prefix: string): RegistryKeys {
  return {
    epoch: `${prefix}epoch`,
    digestKey: `${prefix}digest-key`,
    version: `${prefix}version`,
    log: `${prefix}log`,
    workflows: `${prefix}workflows`,
    routes: `${prefix}routes`,
    workflowRoutes: `${prefix}workflow-routes`,
    listens: `${prefix}listens`,
    testRoutes: `${prefix}test-routes`,
    testWorkflows: `${prefix}test-workflows`,
    relay: (listenId, step) => `${prefix}relay:${listenId}:${step}`,
    messageId: (digest) => `${prefix}message:${digest}`,
    wait: (waitId) => `${prefix}wait:${waitId}`,
    waitPrefix: `${prefix}wait:`,
    waits: `${prefix}waits`,
    acks: `${prefix}acks`,
    rateBudget: (id) => `${prefix}rate:${id}`,
    rateOpened: (scope) => `${prefix}rate-opened:${scope}`,
  };
}
