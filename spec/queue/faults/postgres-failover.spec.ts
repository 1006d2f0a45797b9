/**
 * Queue mode and the PostgreSQL registry when the database fails over to its standby under load: a primary and a
 * streaming standby behind one address (a TCP proxy, as a managed database's endpoint), a web instance and two
 * workers as real processes, a stream of onReceived calls and of registry changes; the standby's replication is cut
 * for a moment (a lagging standby: on loopback an asynchronous one is otherwise seldom behind), then the primary is
 * killed (`pg_ctl stop -m immediate`), the standby promoted and the address switched to it. With a synchronous
 * standby: no call answered 2xx is lost, no refused call runs, no acknowledged registry change is lost, and every
 * process carries on without a restart. With an asynchronous one, what the failover lost is measured and printed.
 * In both, every registry instance (the one making the changes, and one only following them) ends up serving what the
 * promoted server holds.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createWebhookQueue } from 'workflow-webhooks/queue';
import { PostgresWebhookRegistry } from 'workflow-webhooks/postgres';
import { POSTGRES } from '../../support/postgres-server.js';
import { replicatedPair } from '../../support/postgres/standby.js';
import { queueDrained } from '../../support/queue-drained.js';
import { Children, type Child } from '../../support/queue/children.js';
import { begunCalls, completedRuns, completions, eventually, notCompleted } from '../../support/queue/completions.js';
import { closeConnections, stream, tally, type Outcome } from '../../support/queue/load.js';
import { countingLogger } from '../../support/queue/web.js';
import { findService, markNotRun } from '../../support/services.js';

/** The registry's schema, apart from the queue's tables (schema workflow_webhooks) on the same database. */
const REGISTRY_SCHEMA = 'failover_registry';
const ENQUEUE_TIMEOUT_MS = 1000;
/** Calls answered 200 before the standby is cut off: the failover meets a queue in full swing. */
const ACCEPTED_BEFORE = 150;
/** How long the standby is cut off before the primary dies: what an asynchronous standby lags behind. */
const LAG_MS = 1000;
/** How long after the switch calls may take to be taken again before the spec gives up (not a benchmark). */
const TAKEN_AGAIN_WITHIN_MS = 30_000;
/** The stream goes on this long once calls are taken again, so both workers meet jobs stored on the new primary. */
const LOAD_AFTER_MS = 2000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a failover did, counted; printed as a table by each test. */
interface FailoverCounts {
  answered2xx: number;
  answered2xxLost: string[];
  refused: number;
  refusedButRan: string[];
  otherAnswers: Outcome[];
  answeredWhileCut: number;
  /** Calls that ran to completion more than once (at least once delivery: a completion the failover lost). */
  ranAgain: number;
  changesAcknowledged: number;
  changesLost: string[];
  changesAfterSwitch: number;
  /** Per registry instance, the workflows it serves that the promoted server does not hold, and the reverse. */
  servedOtherwise: string[];
  restarted: string[];
  workersIdleAfterSwitch: string[];
  takenAgainSeconds: number | undefined;
  failoverSeconds: number;
  answers: Record<string, number>;
}

/** Each workflow's state after its last acknowledged change (unknown: a deactivation whose outcome was not heard). */
interface Ledger {
  states: Map<string, 'active' | 'inactive' | 'unknown'>;
  acknowledged: number;
  acknowledgedAfterSwitch: number;
}

/** Activations and deactivations one after another until `until()`, each recorded once the registry acknowledged it. */
async function changeRegistry(registry: PostgresWebhookRegistry, until: () => boolean, switchedAt: () => number | undefined): Promise<Ledger> {
  const active: string[] = [];
  const ledger: Ledger = { states: new Map(), acknowledged: 0, acknowledgedAfterSwitch: 0 };
  for (let next = 0; !until(); next += 1) {
    const deactivating = next % 3 === 2 && active.length > 0 ? active.shift() as string : undefined;
    const id = deactivating ?? `failover-${next}`;
    const sentAt = Date.now();
    try {
      if (deactivating !== undefined) {
        await registry.deactivate(id);
        ledger.states.set(id, 'inactive');
      } else {
        await registry.activate({ workflowId: id, nodes: [{ name: 'Webhook', parameters: { path: id, httpMethod: 'POST', responseMode: 'onReceived' } }] });
        ledger.states.set(id, 'active');
        active.push(id);
      }
      ledger.acknowledged += 1;
      if (sentAt > (switchedAt() ?? Number.POSITIVE_INFINITY)) ledger.acknowledgedAfterSwitch += 1;
      await sleep(20);
    } catch {
      // Refused (the database away): stored or not, nobody was told it was.
      if (deactivating !== undefined) ledger.states.set(id, 'unknown');
      await sleep(100);
    }
  }
  return ledger;
}

/** The active workflows the server at `url` holds. */
async function heldWorkflows(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ workflow_id: string }>(`SELECT workflow_id FROM ${REGISTRY_SCHEMA}.workflows`);
    return new Set(rows.map((row) => row.workflow_id));
  } finally {
    await client.end();
  }
}

/** The acknowledged changes the promoted server does not hold: an activation missing, or a deactivation undone. */
function lostChanges(held: Set<string>, ledger: Ledger): string[] {
  return [...ledger.states].filter(([id, state]) => (state === 'active' && !held.has(id)) || (state === 'inactive' && held.has(id)))
    .map(([id, state]) => `${id} (${state})`);
}

/** Where an instance's served workflows differ from the server's: `+id` served but not held, `-id` held but not served. */
async function servedOtherwise(name: string, registry: PostgresWebhookRegistry, held: Set<string>): Promise<string[]> {
  const served = new Set((await registry.list()).map((webhook) => webhook.workflowId));
  return [...[...served].filter((id) => !held.has(id)).map((id) => `${name}: +${id}`), ...[...held].filter((id) => !served.has(id)).map((id) => `${name}: -${id}`)];
}

function printTable(title: string, counts: FailoverCounts): void {
  const rows: Array<[string, string | number]> = [
    ['calls answered 2xx', counts.answered2xx],
    ['  of those lost (never ran)', counts.answered2xxLost.length],
    ['  answered while the standby was cut off', counts.answeredWhileCut],
    ['  run to completion more than once', counts.ranAgain],
    ['calls refused (non-2xx)', counts.refused],
    ['  of those run anyway', counts.refusedButRan.length],
    ['registry changes acknowledged', counts.changesAcknowledged],
    ['  of those lost', counts.changesLost.length],
    ['  acknowledged after the switch', counts.changesAfterSwitch],
    ['workflows an instance serves unlike the server', counts.servedOtherwise.length],
    ['web instances / workers restarted', counts.restarted.length],
    ['seconds from killing the primary to the switch', counts.failoverSeconds.toFixed(2)],
    ['seconds from the switch to a call taken again', counts.takenAgainSeconds === undefined ? 'never' : counts.takenAgainSeconds.toFixed(2)],
  ];
  process.stdout.write(`      ${title}: ${JSON.stringify(counts.answers)}\n${rows.map(([what, value]) => `        ${what.padEnd(48)} ${value}\n`).join('')}`);
}

if (findService(POSTGRES) === undefined) {
  markNotRun('queue mode and the registry on PostgreSQL when the primary fails over to its standby', POSTGRES);
} else {
  describe('queue mode and the PostgreSQL registry when the primary fails over to its standby under load', function () {
    // 15-25 s a test on a busy 2-core machine; the limit leaves room for a slower one and the bounded waits.
    this.timeout(150_000);
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async function () {
      this.timeout(30_000);
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    });
    after(() => closeConnections());

    async function failover(synchronous: boolean): Promise<FailoverCounts> {
      const pair = await replicatedPair({ synchronous });
      if (pair === undefined) throw new Error('PostgreSQL was found, then could not start');
      cleanups.push(() => pair.stop());
      const directory = mkdtempSync(join(tmpdir(), 'queue-pgfailover-'));
      cleanups.push(async () => rmSync(directory, { recursive: true, force: true }));
      const children = new Children();
      cleanups.push(() => children.killAll());
      const queueName = `pgfailover-${synchronous ? 'sync' : 'async'}-${process.pid}`;
      const logs = ['worker-a', 'worker-b'].map((name) => join(directory, `${name}.log`));
      const worker = (name: string, log: string): Promise<Child> => children.start('worker', name, {
        DATABASE_URL: pair.url, QUEUE_NAME: queueName, WORKER_NAME: name, COMPLETION_LOG: log, WORK_MS: '20', CONCURRENCY: '5', LOCK_MS: '2000', STALLED_MS: '1000',
      });

      // The web instance first: the first to open the database creates the tables.
      const web = await children.start('web', 'web', { DATABASE_URL: pair.url, QUEUE_NAME: queueName, ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) });
      const registry = new PostgresWebhookRegistry({ connectionString: pair.url, schema: REGISTRY_SCHEMA, commandTimeoutMs: 5000, logger: countingLogger() });
      cleanups.push(() => registry.close());
      const [workerA, workerB] = await Promise.all([worker('worker-a', logs[0] as string), worker('worker-b', logs[1] as string), registry.ready()]);
      // Another instance of the app: it changes nothing, it follows the change log.
      const follower = new PostgresWebhookRegistry({ connectionString: pair.url, schema: REGISTRY_SCHEMA, commandTimeoutMs: 5000, logger: countingLogger() });
      cleanups.push(() => follower.close());
      await follower.ready();

      let stop = false;
      let cutAt: number | undefined;
      let killedAt: number | undefined;
      let switchedAt: number | undefined;
      let answeredWhileCut = 0;
      let acceptedSoFar = 0;
      let takenAgainAt: number | undefined;
      const streaming = stream({
        prefix: 'failover', inFlight: 10, gapMs: 10, target: () => web.port as number, until: () => stop, hangAfterMs: ENQUEUE_TIMEOUT_MS + 4000,
        onOutcome: (outcome) => {
          if (outcome.status !== 200) return;
          acceptedSoFar += 1;
          const answeredAt = Date.now();
          if (cutAt !== undefined && switchedAt === undefined) answeredWhileCut += 1;
          // A call sent after the switch and stored: the new primary takes calls.
          if (switchedAt !== undefined && takenAgainAt === undefined && answeredAt - outcome.ms >= switchedAt) takenAgainAt = answeredAt;
        },
      });
      const changing = changeRegistry(registry, () => stop, () => switchedAt);
      try {
        expect(await eventually(() => acceptedSoFar >= ACCEPTED_BEFORE, 30_000), `${ACCEPTED_BEFORE} calls answered 200 before the failover`).to.equal(true);
        cutAt = Date.now();
        pair.cutReplication();
        await sleep(LAG_MS);
        killedAt = Date.now();
        switchedAt = await pair.failover();
        await eventually(() => takenAgainAt !== undefined, TAKEN_AGAIN_WITHIN_MS);
        await sleep(LOAD_AFTER_MS);
      } finally {
        stop = true;
      }
      const outcomes = await streaming;
      const ledger = await changing;

      // "Never ran" is final once no job is left to run on the promoted server.
      const inspector = createWebhookQueue({ connection: pair.standby.url, name: queueName, logger: countingLogger() });
      cleanups.push(() => inspector.close());
      await inspector.ready();
      await queueDrained(inspector, 60_000);
      const accepted = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.id);
      // A run's completion line is written before BullMQ records the job completed, so a drained queue has them all;
      // a moment more only for a file write still under way.
      await eventually(() => notCompleted(logs, accepted).length === 0, 1000);
      const held = await heldWorkflows(pair.standby.url);
      // Each instance reads the log at least once a second: past that, what it serves is what it will serve.
      let otherwise: string[] = [];
      await eventually(async () => {
        otherwise = [...await servedOtherwise('changing', registry, held), ...await servedOtherwise('following', follower, held)];
        return otherwise.length === 0;
      }, 3000, 250);
      const begun = begunCalls(logs);
      const refused = outcomes.filter((outcome) => outcome.status !== 200);
      const workersIdleAfterSwitch = ['worker-a', 'worker-b'].filter((name) =>
        !completedRuns(logs).some((run) => run.worker === name && run.startedAt > (switchedAt as number)));
      return {
        answered2xx: accepted.length,
        answered2xxLost: notCompleted(logs, accepted),
        refused: refused.length,
        refusedButRan: refused.filter((outcome) => begun.has(outcome.id)).map((outcome) => outcome.id),
        otherAnswers: refused.filter((outcome) => outcome.status !== 503 || outcome.code !== 'QUEUE_UNAVAILABLE'),
        answeredWhileCut,
        ranAgain: [...completions(logs).values()].filter((count) => count > 1).length,
        changesAcknowledged: ledger.acknowledged,
        changesLost: lostChanges(held, ledger),
        changesAfterSwitch: ledger.acknowledgedAfterSwitch,
        servedOtherwise: otherwise,
        restarted: [
          ...children.unexpectedExits.map((exit) => `${exit.name} exited (${exit.code ?? exit.signal}): ${exit.stderr}`),
          // The very processes started above, still running: nothing of this spec starts one again.
          ...[web, workerA, workerB].filter((child) => child.process.exitCode !== null || child.process.signalCode !== null).map((child) => child.name),
        ],
        workersIdleAfterSwitch,
        takenAgainSeconds: takenAgainAt === undefined ? undefined : (takenAgainAt - switchedAt) / 1000,
        failoverSeconds: (switchedAt - (killedAt as number)) / 1000,
        answers: tally(outcomes),
      };
    }

    it('loses no call answered 2xx, runs no refused call, loses no acknowledged registry change and restarts nothing when a synchronous standby is promoted', async () => {
      const counts = await failover(true);
      printTable('failover to a synchronous standby', counts);
      expect(counts.answered2xxLost, 'calls answered 2xx whose run never completed').to.deep.equal([]);
      expect(counts.refusedButRan, 'calls refused that ran').to.deep.equal([]);
      expect(counts.changesLost, 'acknowledged registry changes the promoted server does not hold').to.deep.equal([]);
      expect(counts.servedOtherwise, 'workflows an instance serves unlike the promoted server').to.deep.equal([]);
      expect(counts.restarted, 'web instances or workers that ended').to.deep.equal([]);
      // Carrying on, not merely alive: calls taken and run on the new primary by the web instance and each worker, and
      // the registry taking changes again.
      expect(counts.takenAgainSeconds, `a call answered 2xx within ${TAKEN_AGAIN_WITHIN_MS / 1000} s of the switch`).to.not.equal(undefined);
      expect(counts.workersIdleAfterSwitch, 'workers that ran nothing after the switch').to.deep.equal([]);
      expect(counts.changesAfterSwitch, 'registry changes acknowledged after the switch').to.be.above(0);
      // While the database was away calls were refused 503 QUEUE_UNAVAILABLE, never dropped or left hanging.
      expect(counts.otherAnswers.map((outcome) => `${outcome.id}: ${outcome.status ?? outcome.error} ${outcome.code ?? ''}`)).to.deep.equal([]);
      expect(counts.answered2xx).to.be.above(ACCEPTED_BEFORE);
    });

    it('measures what a failover to an asynchronous standby loses, and carries on without a restart, every instance serving what the promoted server holds', async () => {
      const counts = await failover(false);
      printTable('failover to an asynchronous standby (losses measured, not required to be 0)', counts);
      expect(counts.restarted, 'web instances or workers that ended').to.deep.equal([]);
      expect(counts.takenAgainSeconds, `a call answered 2xx within ${TAKEN_AGAIN_WITHIN_MS / 1000} s of the switch`).to.not.equal(undefined);
      expect(counts.workersIdleAfterSwitch, 'workers that ran nothing after the switch').to.deep.equal([]);
      expect(counts.changesAfterSwitch, 'registry changes acknowledged after the switch').to.be.above(0);
      // The log went back to the standby's last entry and numbers new changes as the lost ones were: each instance
      // notices and reloads, rather than skipping the new changes and serving the lost ones.
      expect(counts.servedOtherwise, 'workflows an instance serves unlike the promoted server').to.deep.equal([]);
    });
  });
}
