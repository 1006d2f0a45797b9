/**
 * An instance whose link to PostgreSQL was cut while another instance made changes: it keeps serving from memory,
 * and once the link is back it catches up by itself, from the change log when the log still holds what it missed, by a
 * full reload when the log has dropped it (a gap); given `staleAfterMs`, it refuses calls 503 once cut off for longer
 * than that. The link runs through a TCP proxy the spec cuts, so the database itself stays up for the other instance.
 */
import { expect } from 'chai';
import { PostgresWebhookRegistry, type PostgresRegistryEvent, type PostgresWebhookRegistryOptions } from 'workflow-webhooks/postgres';
import { eventually } from '../support/registry-contract/instances.js';
import { rejectionOf, workflowOf } from '../support/registry-contract/fixture.js';
import { POSTGRES, sharedPostgres, type PostgresServer } from '../support/postgres-server.js';
import { findService, markNotRun } from '../support/services.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { closeAll, eachOf } from '../support/close-all.js';

const found = async (registry: PostgresWebhookRegistry, path: string): Promise<boolean> => (await registry.lookup('production', 'GET', path)).found;

if (findService(POSTGRES) === undefined) {
  markNotRun('the PostgreSQL registry catching up after its link was cut', POSTGRES);
} else {
  describe('the PostgreSQL registry catching up after its link was cut', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    let schema: string;
    let count = 0;
    const opened: PostgresWebhookRegistry[] = [];
    const proxies: TcpProxy[] = [];

    function open(address: string, options: Partial<PostgresWebhookRegistryOptions> = {}): { registry: PostgresWebhookRegistry; events: PostgresRegistryEvent[] } {
      const events: PostgresRegistryEvent[] = [];
      const registry = new PostgresWebhookRegistry({
        connectionString: `postgres://postgres@${address}/postgres`, schema, commandTimeoutMs: 10_000, onEvent: (event) => events.push(event), ...options,
      });
      opened.push(registry);
      return { registry, events };
    }

    async function proxy(): Promise<TcpProxy> {
      const made = await TcpProxy.start(server.port);
      proxies.push(made);
      return made;
    }

    before(async () => { server = await sharedPostgres() as PostgresServer; });
    beforeEach(() => { schema = `catch_up_${process.pid}_${(count += 1)}`; });
    afterEach(() => closeAll(
      ...eachOf(proxies, (made) => made.restore()),
      ...eachOf(opened.splice(0), (registry) => registry.close()),
      ...eachOf(proxies.splice(0), (made) => made.stop()),
    ));

    it('serves what it had while cut off, then applies the changes it missed from the change log, without a restart', async () => {
      const link = await proxy();
      const cutOff = open(new URL(link.url).host);
      const online = open(`127.0.0.1:${server.port}`);
      await online.registry.ready();
      await cutOff.registry.ready();
      await online.registry.activate(workflowOf('wf-1', { path: 'one' }));
      await eventually(() => found(cutOff.registry, 'one'));
      link.cut();
      await online.registry.deactivate('wf-1');
      await online.registry.activate(workflowOf('wf-2', { path: 'two' }));
      // Its notifications could not arrive: the table in memory is the one it had.
      expect(await found(cutOff.registry, 'one')).to.equal(true);
      link.restore();
      await eventually(async () => !(await found(cutOff.registry, 'one')) && found(cutOff.registry, 'two'), 20_000);
      expect(cutOff.events.some((event) => event.type === 'resynced' && event.reason === 'gap')).to.equal(false);
    });

    it('reloads everything when the change log has dropped changes it missed, and then serves exactly the current set', async () => {
      const link = await proxy();
      const cutOff = open(new URL(link.url).host, { changeLogLength: 100 });
      const online = open(`127.0.0.1:${server.port}`, { changeLogLength: 100 });
      await online.registry.ready();
      await cutOff.registry.ready();
      await online.registry.activate(workflowOf('wf-old', { path: 'old' }));
      await eventually(() => found(cutOff.registry, 'old'));
      link.cut();
      for (let index = 0; index < 300; index += 1) await online.registry.activate(workflowOf(`wf-${index}`, { path: `hook-${index}` }));
      await online.registry.deactivate('wf-old');
      await online.registry.deactivate('wf-0');
      link.restore();
      await eventually(async () => cutOff.events.some((event) => event.type === 'resynced' && event.reason === 'gap'), 20_000);
      expect([await found(cutOff.registry, 'old'), await found(cutOff.registry, 'hook-0'), await found(cutOff.registry, 'hook-299')]).to.deep.equal([false, false, true]);
      expect(cutOff.registry.health().workflows).to.equal(299);
    });

    it('answers calls 503 once cut off for longer than staleAfterMs, and serves them again once the link is back', async () => {
      const link = await proxy();
      const { registry } = open(new URL(link.url).host, { staleAfterMs: 300 });
      await registry.ready();
      await registry.activate(workflowOf('wf', { path: 'hook' }));
      link.cut();
      await eventually(async () => !registry.health().serving, 20_000);
      const error = await rejectionOf(registry.lookup('production', 'GET', 'hook'));
      expect([error.code, error.status, error.headers['retry-after']]).to.deep.equal(['REGISTRY_UNAVAILABLE', 503, '1']);
      expect(error.message).to.equal('The webhook registry has lost PostgreSQL for longer than staleAfterMs allows.');
      link.restore();
      await eventually(async () => registry.health().serving && found(registry, 'hook'), 20_000);
    });
  });
}
