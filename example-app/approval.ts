/**
 * The approval pattern: `POST expenses` records an expense and suspends its run on a signed, one-time approval link
 * (in a real backend, e-mailed to the approver); clicking the link (`&decision=approve` or `reject`) resumes the
 * run, on any instance, worker or after any restart, with the state it left: the expense as it was recorded.
 */
import type { Item, WebhookRun, WorkflowWebhooks } from 'workflow-webhooks';
import type { Step } from './executor.js';

// docs/waiting.md ("Waiting for a call") prints the code from here to #endregion; spec/example-app/approval.spec.ts keeps the two the same.
// #region readme
interface Expense { id: number; amount: number; for: string; status: 'awaiting approval' | 'approved' | 'rejected' }

export const APPROVAL_WORKFLOW: WorkflowWebhooks = {
  workflowId: 'expense-approval',
  workflowName: 'Expense approval',
  nodes: [{ name: 'Webhook', parameters: { path: 'expenses', httpMethod: 'POST', responseMode: 'lastNode' } }],
};

/** The workflow's one step: record and suspend, or, resumed by the link, apply the decision. */
export function approvalSteps(expenses: Expense[] = []): Step[] {
  return [{
    type: 'code',
    async run(items: Item[], run: WebhookRun): Promise<Item[]> {
      const json = items[0]?.json as { body?: { amount?: unknown; for?: unknown }; query?: { decision?: unknown } } | undefined;
      if (run.resume !== undefined) {
        // The state, not this process's memory: in queue mode another worker may have recorded the expense.
        const recorded = (run.resume.state as { expense: Expense }).expense;
        const expense = expenses.find((candidate) => candidate.id === recorded.id) ?? recorded;
        expense.status = json?.query?.decision === 'reject' ? 'rejected' : 'approved';
        return [{ json: { expense } }];
      }
      const expense: Expense = { id: expenses.length + 1, amount: Number(json?.body?.amount ?? 0), for: String(json?.body?.for ?? ''), status: 'awaiting approval' };
      expenses.push(expense);
      // A link is clicked (GET); the approver has a week. The answer is the resumed run's result.
      const { resumeUrl } = await run.suspend({ state: { expense }, httpMethod: ['GET', 'POST'], responseMode: 'lastNode', expiresInMs: 7 * 24 * 3600_000 });
      return [{ json: { expense, approvalUrl: resumeUrl } }];
    },
  }];
}
// #endregion
