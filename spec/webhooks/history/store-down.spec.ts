/**
 * History on a shared store (Redis, PostgreSQL) that is down when the app starts, over HTTP to an Express 5 host:
 * calls are answered as usual while it is away, the host's log tells the outage once however many writes fail,
 * finding kept calls is refused 503 HISTORY_UNAVAILABLE (the API and the console alike), and once the server starts
 * every call made meanwhile is in the store, in order, and the log says the store takes calls again.
 */
import { expect } from 'chai';
import { historyId } from '../../../lib/webhooks/history/ids.js';
import { findService, markNotRun } from '../../support/services.js';
import { STORES_DOWN, type DownStore } from '../../support/stores-down.js';
import {
  CONSOLE_FIND_FAILED, eventually, historyLines, historyStoreAt, OUTAGE_LINE, RECOVERY_LINE, startDownApp, unhandledRejections, webhookErrorCode,
  type DownApp, type OpenedHistoryStore,
} from '../../support/history/down-app.js';

/** Calls made while the store is away. */
const WHILE_DOWN = 12;
/** Writes the writer tries (and the store refuses) before the spec looks at the log: the outage is one line for them all. */
const FAILED_WRITES = 3;

for (const kind of STORES_DOWN) {
  if (findService(kind.service) === undefined) {
    markNotRun(`history on ${kind.name} that is down when the app starts`, kind.service);
    continue;
  }
  describe(`history on ${kind.name} that is down when the app starts`, function () {
    this.timeout(60_000);
    let down: DownStore;
    let opened: OpenedHistoryStore;
    let host: DownApp;
    const unhandled = unhandledRejections();
    const sent = Array.from({ length: WHILE_DOWN }, (_, index) => `down-${index}`);

    before(async function () {
      // initdb and a first start take seconds on a loaded machine.
      this.timeout(120_000);
      down = await kind.open();
      opened = historyStoreAt(kind.name, down.url);
      host = await startDownApp(opened.store);
    });
    after(async function () {
      this.timeout(30_000);
      await host?.app.close();
      await opened?.close();
      await down?.stop();
    });

    it('answers every call as usual while the store is away, refuses finding calls 503 HISTORY_UNAVAILABLE, and logs the outage once', async () => {
      const statuses: number[] = [];
      for (const requestId of sent.slice(0, WHILE_DOWN / 2)) statuses.push(await host.post(requestId));
      // Several writes refused, each tried again after its backoff, with calls still coming: one line for them all.
      await eventually(() => opened.appends() >= FAILED_WRITES, `${FAILED_WRITES} writes tried`);
      for (const requestId of sent.slice(WHILE_DOWN / 2)) statuses.push(await host.post(requestId));
      const tried = opened.appends();
      await eventually(() => opened.appends() > tried, 'one more write tried');
      expect(statuses, 'each call answered as its workflow says').to.deep.equal(sent.map(() => 200));
      expect(host.lines).to.deep.equal([OUTAGE_LINE]);

      expect(await webhookErrorCode(host.history.find())).to.equal('HISTORY_UNAVAILABLE');
      expect(await webhookErrorCode(host.history.get(historyId(Date.now())))).to.equal('HISTORY_UNAVAILABLE');
      expect(await host.consoleFind()).to.deep.equal({ status: 503, code: 'HISTORY_UNAVAILABLE' });
      expect(host.runs, 'every call ran').to.have.length(WHILE_DOWN);
    });

    it('writes every call made meanwhile, in order, once the server starts, and logs that the store takes calls again', async () => {
      await down.up();
      await eventually(async () => (await host.keptRequestIds()).length >= WHILE_DOWN, 'the calls made while it was away kept');
      expect(await host.keptRequestIds()).to.deep.equal(sent);
      await eventually(() => host.lines.includes(RECOVERY_LINE), 'the recovery logged');
      // The writer's two lines; beside them only the console's for the one 503 it answered (a request somebody made).
      expect(historyLines(host.lines)).to.deep.equal([OUTAGE_LINE, RECOVERY_LINE]);
      expect(host.lines).to.deep.equal([OUTAGE_LINE, CONSOLE_FIND_FAILED, RECOVERY_LINE]);

      // And it goes on keeping calls, the console finding them.
      expect(await host.post('after')).to.equal(200);
      await host.history.flush();
      expect(await host.keptRequestIds()).to.deep.equal([...sent, 'after']);
      expect(await host.consoleFind()).to.deep.include({ status: 200 });
      expect(unhandled, 'unhandled rejections').to.deep.equal([]);
    });
  });
}
