/**
 * The node hints the console shows beside the Webhook node's description in the preview (the node's property
 * definitions carry none): the page evaluates them with resolveHints for the parameters entered, before and after a
 * test run, in the pane each one names. How long a lastNode caller waited depends on the run, not on the parameters:
 * the page warns about that from the run itself (RunDto.slow), only when the run was slow.
 */
import type { NodeHint } from '../../definitions/index.js';

export const WEBHOOK_NODE_HINTS: NodeHint[] = [
  {
    message: 'The test address accepts one call, and only while this page listens: start listening first, then call it.',
    type: 'info',
    location: 'inputPane',
    whenToDisplay: 'beforeExecution',
  },
  {
    message: 'Anyone who knows the production address can call it: set <b>Authentication</b> before activating the workflow.',
    type: 'danger',
    location: 'ndv',
    displayCondition: "={{ $parameter.authentication === 'none' }}",
  },
  {
    message: 'The caller got its answer as soon as the call arrived; this output went nowhere but here.',
    type: 'info',
    location: 'outputPane',
    whenToDisplay: 'afterExecution',
    displayCondition: "={{ $parameter.responseMode === 'onReceived' }}",
  },
];
