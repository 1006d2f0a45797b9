/**
 * The resume addresses of waiting runs in the OpenAPI document: one templated path, since every run's address has
 * the same shape (`/<waitingPrefix>/{waitId}?signature=…`; a wait with a suffix adds it as a last segment).
 */
const ERROR = { content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookError' } } } };

function error(description: string): Record<string, unknown> {
  return { description, ...ERROR };
}

/** The path key and its item; `prefix` is the middleware's waitingPrefix. */
export function waitingPath(prefix: string): [string, Record<string, unknown>] {
  return [`/${prefix}/{waitId}`, {
    parameters: [
      { name: 'waitId', in: 'path', required: true, description: 'The waiting run\'s id, from its resume address.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' } },
      {
        name: 'signature', in: 'query', required: true,
        description: 'The address\'s signature, as the run gave it: it is made for this id and suffix only, and the resumed run does not see it.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
      },
    ],
    post: {
      operationId: 'resumeWaitingRun',
      tags: ['Waiting runs'],
      summary: 'Resume a waiting run',
      description: 'Resumes a run that waits for a call at its resume address (POST unless the wait allows other methods; a wait '
        + 'with a suffix is called at `/{waitId}/{suffix}`). One call resumes it; the answer is as the wait says: at once, '
        + 'with the run\'s result, or with its own response.',
      requestBody: { required: false, content: { '*/*': { schema: {} } } },
      responses: {
        200: { description: 'The run was resumed (the wait may answer with another status and body).' },
        403: error('The signature is missing, wrong, or made for another address of the run, such as another suffix (WAIT_SIGNATURE_INVALID).'),
        404: error('The address is unknown or expired, or the run waits at another suffix (WAIT_NOT_FOUND).'),
        405: error('The wait does not take this method (WEBHOOK_METHOD_NOT_ALLOWED); Allow lists those it takes.'),
        409: error('The run does not wait now: resumed already, not yet waiting, or finished (WAIT_ALREADY_RESUMED, WAIT_RUN_RUNNING, WAIT_RUN_FINISHED).'),
        421: error('The run waits in the run on another instance (WAIT_ON_OTHER_INSTANCE).'),
      },
    },
  }];
}
