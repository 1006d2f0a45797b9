/**
 * What `npm run start:cluster` shows by itself once its three instances answer: every check below talks to the
 * instances over HTTP only, so what it prints is what any caller would see. Only instance a activated anything.
 */

export interface Member { name: string; url: string }

interface Answer { status: number; instance: string; text: string }

const HELLO = '/api/automation/webhook/hello?name=Ada';

async function call(member: Member, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${member.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, instance: res.headers.get('x-instance') ?? '(none)', text: await res.text() };
}

/** Repeats `attempt` every few ms until `done` holds; resolves the answer and the ms since `since`, or throws. */
async function until(attempt: () => Promise<Answer>, done: (answer: Answer) => boolean, withinMs: number, since = performance.now()): Promise<{ answer: Answer; ms: number }> {
  for (;;) {
    const answer = await attempt();
    const ms = Math.round(performance.now() - since);
    if (done(answer)) return { answer, ms };
    if (ms > withinMs) throw new Error(`still ${answer.status} after ${ms} ms: ${answer.text.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function expectStatus(what: string, answer: Answer, status: number): void {
  if (answer.status !== status) throw new Error(`${what} answered ${answer.status}, not ${status}: ${answer.text.slice(0, 200)}`);
}

const shown = (answer: Answer): string => `${answer.status}, x-instance: ${answer.instance}`;

/** Runs the three checks, printing each step; throws at the first one that does not hold. */
export async function proveCluster([a, b, c]: [Member, Member, Member], print: (line: string) => void): Promise<void> {
  print('1. b and c serve the greeting webhook that only a activated:');
  for (const member of [b, c]) {
    // a activated before it answered; b and c learn it from Redis' change log within milliseconds.
    const { answer } = await until(() => call(member, 'GET', HELLO), (seen) => seen.status === 200, 2000);
    print(`   ${member.name}  GET ${HELLO} -> ${shown(answer)}, ${JSON.stringify(answer.text)}`);
  }

  print('2. A test listen started on a captures a call sent to b:');
  const listening = call(a, 'POST', '/api/editor/workflows/signup/listen?timeoutMs=10000');
  // b answers 404 until the listen reached it through the change log.
  const { answer: sent } = await until(() => call(b, 'POST', '/api/automation/webhook-test/signup', { name: 'Ada' }), (seen) => seen.status !== 404, 3000);
  expectStatus('The test call on b', sent, 200);
  print(`   b  POST /api/automation/webhook-test/signup {"name":"Ada"} -> ${shown(sent)}, ${sent.text}`);
  const captured = await listening;
  expectStatus("a's listen route", captured, 200);
  const result = JSON.parse(captured.text) as { status: string; trigger?: { json: { body: unknown } }[]; output?: { items: { json: unknown }[] } };
  if (result.status !== 'received') throw new Error(`a's listen ended ${result.status}`);
  print(`   a  POST /api/editor/workflows/signup/listen -> ${shown(captured)}, ${result.status}: body ${JSON.stringify(result.trigger?.[0]?.json.body)}, output ${JSON.stringify(result.output?.items[0]?.json)}`);

  print('3. Deactivating greeting on a frees its address on every instance:');
  const sentAt = performance.now();
  const off = await call(a, 'DELETE', '/api/editor/workflows/greeting/active');
  expectStatus('The deactivation on a', off, 200);
  print(`   a  DELETE /api/editor/workflows/greeting/active -> ${shown(off)}, ${off.text}`);
  const gone = await Promise.all([b, c].map((member) => until(() => call(member, 'GET', HELLO), (seen) => seen.status === 404, 1000, sentAt)));
  print(`   b and c answer GET ${HELLO} with 404 after ${gone[0]?.ms} ms and ${gone[1]?.ms} ms (counted from sending the DELETE)`);
  const againAt = performance.now();
  const on = await call(a, 'PUT', '/api/editor/workflows/greeting/active');
  expectStatus('The activation on a', on, 200);
  const back = await Promise.all([b, c].map((member) => until(() => call(member, 'GET', HELLO), (seen) => seen.status === 200, 1000, againAt)));
  print(`   a  PUT /api/editor/workflows/greeting/active -> ${on.status}; b and c answer 200 again after ${back[0]?.ms} ms and ${back[1]?.ms} ms`);
}

/** Lines a user can paste to see the same by hand. */
export function tryLines([a, b, c]: [Member, Member, Member]): string[] {
  return [
    `Try it (a ${a.url} activated the workflows; b ${b.url} and c ${c.url} only serve them):`,
    `  curl -i '${b.url}${HELLO}'`,
    `  curl -X DELETE ${a.url}/api/editor/workflows/greeting/active`,
    `  curl -i '${c.url}${HELLO}'     # 404 now`,
    `  curl -X PUT ${a.url}/api/editor/workflows/greeting/active`,
    `  curl -X POST ${a.url}/api/editor/workflows/signup/listen &`,
    `  curl -X POST ${b.url}/api/automation/webhook-test/signup -H 'content-type: application/json' -d '{"name":"Ada"}'`,
    'Webhooks are shared; orders and report jobs stay in the memory of the instance that took them.',
  ];
}
