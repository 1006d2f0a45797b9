/**
 * The example's tiny workflow engine. A real host plugs its own engine in here; the middleware only needs
 * `(run) => Promise<{ items }>`. Steps after the Webhook node run in order over the items.
 */
import type { ExecutionResult, Item, WebhookExecutor, WebhookRun } from 'workflow-webhooks';

/** "Edit Fields (Set)": sets fields to texts; `{{ path.to.value }}` reads the incoming item's json. */
export interface EditFieldsStep {
  type: 'editFields';
  keepOnlySet: boolean;
  fields: Record<string, string>;
}

/** Any custom code of the host, given the items (and the call, to respond early or watch its signal). */
export interface CodeStep {
  type: 'code';
  run(items: Item[], call: WebhookRun): Item[] | Promise<Item[]>;
}

export type Step = EditFieldsStep | CodeStep;

function read(json: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) =>
    (typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined), json);
}

function fill(template: string, json: unknown): string {
  return template.replace(/\{\{\s*([\w.$-]+)\s*\}\}/g, (_match, path: string) => {
    const value = read(json, path);
    return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function editFields(step: EditFieldsStep, items: Item[]): Item[] {
  return items.map((item) => {
    const set = Object.fromEntries(Object.entries(step.fields).map(([name, template]) => [name, fill(template, item.json)]));
    return { json: step.keepOnlySet ? set : { ...item.json, ...set } };
  });
}

/** Builds the executor from each workflow's steps. */
export function createExecutor(workflows: ReadonlyMap<string, Step[]>): WebhookExecutor {
  return async (run): Promise<ExecutionResult> => {
    // Steps turn trigger items into any items: the list is Item[] from here on.
    let items: Item[] = run.items;
    for (const step of workflows.get(run.workflowId) ?? []) {
      items = step.type === 'editFields' ? editFields(step, items) : await step.run(items, run);
    }
    return { items };
  };
}
