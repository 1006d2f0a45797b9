import { expect } from 'chai';
import { createClient } from 'redis';
import { RedisWebhookRegistry, type RedisRegistryEvent, type RedisWebhookRegistryOptions } from 'workflow-webhooks/redis';
import { eventually } from '../support/registry-contract/instances.js';
import { rejectionOf, workflowOf } from '../support/registry-contract/fixture.js';
import { freePort, REDIS, RedisServer } from '../support/redis-server.js';
import { findService, markNotRun } from '../support/services.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const found = async (registry: RedisWebhookRegistry, path: string): Promise<boolean> => (await registry.lookup('production', 'GET', path)).found;

if (findService(REDIS) === undefined) {
  markNotRun('the Redis registry through Redis faults', REDIS);
} else {
  describe('the Redis registry when Redis fails', function () {
    this.timeout(20_000);
    let server: RedisServer;
    let prefix: string;
    let count = 0;
    const opened: { registry: RedisWebhookRegistry; client: { destroy(): unknown } }[] = [];
    const proxies: TcpProxy[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };

    async function open(url: string, options: Partial<RedisWebhookRegistryOptions> = {}): Promise<{ registry: RedisWebhookRegistry; events: RedisRegistryEvent[] }> {
      const client = createClient({ url });
      client.on('error', () => undefined);
      const events: RedisRegistryEvent[] = [];
      const registry = new RedisWebhookRegistry({ client, prefix, commandTimeoutMs: 400, onEvent: (event) => events.push(event), ...options });
      opened.push({ registry, client });
      return { registry, events };
    }

    async function proxy(): Promise<TcpProxy> {
      const made = await TcpProxy.start(server.port);
      proxies.push(made);
      return made;
    }

    before(async () => {
      server = await RedisServer.start() as RedisServer;
      process.on('unhandledRejection', onUnhandled);
    });
    beforeEach(() => { prefix = `faults-${(count += 1)}:`; });
    afterEach(async () => {
      server.resume();
      for (const { registry, client } of opened.splice(0)) {
        await registry.close();
        client.destroy();
      }
      for (const made of proxies.splice(0)) await made.stop();
      expect(unhandled).to.deep.equal([]);
    });
    after(async () => {
      process.off('unhandledRejection', onUnhandled);
      await server?.stop();
    });

    it('serves from memory while Redis is paused, refuses changes within the timeout, and never applies one late', async () => {
      const { registry, events } = await open(server.url);
      await registry.ready();
      await registry.activate(workflowOf('wf-1', { path: 'kept' }));
      server.pause();
      // A paused Redis never answers: only the registry's own timeout can refuse the change.
      const error = await rejectionOf(registry.activate(workflowOf('wf-2', { path: 'late' })));
      expect(error.code).to.equal('REGISTRY_UNAVAILABLE');
      expect(await found(registry, 'kept')).to.equal(true);
      await eventually(async () => registry.health().status === 'degraded', 4000);
      expect(events.map((event) => event.type)).to.include('disconnected');
      server.resume();
      await eventually(async () => registry.health().status === 'ready', 4000);
      expect(events.map((event) => event.type)).to.include('reconnected');
      const other = (await open(server.url)).registry;
      await other.ready();
      expect([await found(registry, 'late'), await found(other, 'late')]).to.deep.equal([false, false]);
      await registry.activate(workflowOf('wf-2', { path: 'late' }));
      await eventually(() => found(other, 'late'));
    });

    it('catches up on what changed elsewhere while this instance was cut off', async () => {
      const link = await proxy();
      const cutOff = await open(link.url);
      const online = await open(server.url);
      await cutOff.registry.ready();
      await online.registry.ready();
      await online.registry.activate(workflowOf('wf-1', { path: 'one' }));
      await eventually(() => found(cutOff.registry, 'one'));
      link.cut();
      await online.registry.deactivate('wf-1');
      await online.registry.activate(workflowOf('wf-2', { path: 'two' }));
      expect(await found(cutOff.registry, 'one')).to.equal(true);
      link.restore();
      await eventually(async () => !(await found(cutOff.registry, 'one')) && found(cutOff.registry, 'two'), 4000);
    });

    it('reloads everything when the log has dropped changes this instance missed', async () => {
      const link = await proxy();
      const cutOff = await open(link.url, { changeLogLength: 100 });
      const online = await open(server.url, { changeLogLength: 100 });
      await cutOff.registry.ready();
      await online.registry.ready();
      link.cut();
      for (let index = 0; index < 400; index += 1) await online.registry.activate(workflowOf(`wf-${index}`, { path: `hook-${index}` }));
      await online.registry.deactivate('wf-0');
      link.restore();
      await eventually(async () => cutOff.events.some((event) => event.type === 'resynced' && event.reason === 'gap'), 5000);
      expect([await found(cutOff.registry, 'hook-0'), await found(cutOff.registry, 'hook-399')]).to.deep.equal([false, true]);
      expect(cutOff.registry.health().workflows).to.equal(399);
    });

    it('answers calls with 503 once cut off for longer than staleAfterMs, and serves again when back', async () => {
      const link = await proxy();
      const { registry } = await open(link.url, { staleAfterMs: 300 });
      await registry.ready();
      await registry.activate(workflowOf('wf', { path: 'hook' }));
      link.cut();
      await eventually(async () => !registry.health().serving, 5000);
      const error = await rejectionOf(registry.lookup('production', 'GET', 'hook'));
      expect([error.code, error.status, error.headers['retry-after']]).to.deep.equal(['REGISTRY_UNAVAILABLE', 503, '1']);
      link.restore();
      await eventually(async () => registry.health().serving && found(registry, 'hook'), 5000);
    });

    it('learns, when it notices a reset late, what the new store did meanwhile with the workflows it kept', async () => {
      const link = await proxy();
      const first = await open(server.url);
      const late = await open(link.url);
      await first.registry.ready();
      await late.registry.ready();
      await first.registry.activate(workflowOf('wf', { path: 'moved' }));
      await eventually(() => found(late.registry, 'moved'));
      link.cut();
      await server.kill();
      await server.restart();
      await eventually(async () => first.events.some((event) => event.type === 'storeReset'), 5000);
      await first.registry.activate(workflowOf('wf', { path: 'moved' }));
      await first.registry.deactivate('wf');
      expect(await found(late.registry, 'moved')).to.equal(true);
      link.restore();
      await eventually(async () => late.events.some((event) => event.type === 'resynced' && event.reason === 'reset'), 5000);
      await eventually(async () => !(await found(late.registry, 'moved')), 2000);
    });

    it('reports a Redis that came back empty, keeps serving, and lets the host activate its workflows again', async () => {
      const first = await open(server.url);
      const second = await open(server.url);
      await first.registry.ready();
      await second.registry.ready();
      await first.registry.activate(workflowOf('wf', { path: 'survivor', httpMethod: 'GET' }, 'Survivor'));
      await eventually(() => found(second.registry, 'survivor'));
      await server.kill();
      expect(await found(second.registry, 'survivor')).to.equal(true);
      expect((await rejectionOf(first.registry.deactivate('wf'))).code).to.equal('REGISTRY_UNAVAILABLE');
      await server.restart();
      await eventually(async () => first.events.some((event) => event.type === 'storeReset'), 5000);
      const reset = first.events.find((event) => event.type === 'storeReset');
      expect(reset?.type === 'storeReset' && reset.workflows.map((workflow) => workflow.workflowName)).to.deep.equal(['Survivor']);
      expect(await found(first.registry, 'survivor')).to.equal(true);
      if (reset?.type === 'storeReset') for (const workflow of reset.workflows) await first.registry.activate(workflow);
      await first.registry.deactivate('wf');
      await eventually(async () => !(await found(second.registry, 'survivor')), 4000);
    });
  });
}
