/**
 * The route table on its own: which webhook a method and a request path reach (static before parametrised, the more
 * literal template first, parameters decoded), which methods a known path lists for a 405, and that removing a
 * webhook removes exactly that one and never another workflow's.
 */
import { expect } from 'chai';
import type { HttpMethod } from '../../../lib/core/types.js';
import type { RegisteredWebhook } from '../../../lib/webhooks/registry/contract.js';
import { isDynamicPath } from '../../../lib/webhooks/registry/paths.js';
import { RouteTable } from '../../../lib/webhooks/registry/route-table.js';

function webhook(workflowId: string, method: HttpMethod, path: string): RegisteredWebhook {
  return {
    kind: 'production',
    credentials: undefined,
    workflowId,
    workflowName: undefined,
    nodeName: 'Webhook',
    method,
    path,
    isDynamic: isDynamicPath(path),
    outputIndex: 0,
    parameters: {} as RegisteredWebhook['parameters'],
  };
}

function reached(table: RouteTable, method: string, path: string): string | undefined {
  const found = table.lookup(method, path);
  return found.found ? found.webhook.workflowId : undefined;
}

describe('route table', () => {
  it('compiles only the parametrised paths of a set, and refuses the whole set for one bad parameter', () => {
    const compiled = RouteTable.compile([webhook('w', 'GET', 'plain'), webhook('w', 'GET', 'o/:id'), webhook('w', 'POST', 'o/:id')]);
    expect([...compiled.keys()]).to.deep.equal(['o/:id']);
    expect(() => RouteTable.compile([webhook('w', 'GET', 'ok/:id'), webhook('w', 'GET', 'bad/:1x')])).to.throw().with.property('code', 'WEBHOOK_INVALID_NODE');
  });

  it('gives a path parameter back decoded, and only the parameters the template names', () => {
    const table = new RouteTable();
    table.add(webhook('w', 'GET', ':id/details'));
    const found = table.lookup('GET', 'a%20b/details');
    expect(found.found && found.webhook.workflowId).to.equal('w');
    expect(found.found && found.params).to.deep.equal({ id: 'a b' });
    expect(table.lookup('GET', '42/summary')).to.deep.equal({ found: false, methods: [] });
  });

  it('reaches a template that starts with a parameter when the first segment is a word', () => {
    const table = new RouteTable();
    table.add(webhook('first-literal', 'GET', 'orders/:id/x'));
    table.add(webhook('param-first', 'GET', ':tenant/:id/items'));
    expect(reached(table, 'GET', 'shop/7/items')).to.equal('param-first');
    expect(reached(table, 'GET', 'orders/7/x')).to.equal('first-literal');
  });

  it('prefers the template with more literal segments, whatever the order they were added in', () => {
    const table = new RouteTable();
    table.add(webhook('one-literal', 'GET', 'a/:x/:y'));
    table.add(webhook('two-literals', 'GET', 'a/:x/0'));
    expect(reached(table, 'GET', 'a/1/0')).to.equal('two-literals');
    expect(reached(table, 'GET', 'a/1/2')).to.equal('one-literal');
    const later = new RouteTable();
    later.add(webhook('two-early', 'GET', 'a/b/:x/:y'));
    later.add(webhook('three-late', 'GET', 'a/:x/b/c'));
    expect(reached(later, 'GET', 'a/b/b/c')).to.equal('three-late');
  });

  it('among templates as literal as each other, the one whose literals come earlier wins', () => {
    for (const order of [['late', 'early'], ['early', 'late']]) {
      const table = new RouteTable();
      for (const name of order) table.add(webhook(name, 'GET', name === 'early' ? 'a/b/:y' : 'a/:x/c'));
      expect(reached(table, 'GET', 'a/b/c'), order.join(' then ')).to.equal('early');
    }
  });

  it('serves a static path before a template that also matches it', () => {
    const table = new RouteTable();
    table.add(webhook('dynamic', 'GET', 'users/:id'));
    table.add(webhook('static', 'GET', 'users/me'));
    expect(reached(table, 'GET', 'users/me/')).to.equal('static');
    expect(reached(table, 'GET', 'users/you')).to.equal('dynamic');
    expect(reached(table, 'GET', 'Users/me')).to.equal(undefined);
  });

  it('lists the methods of the static path and of every matching template for a 405', () => {
    const table = new RouteTable();
    table.add(webhook('s', 'GET', 'users/me'));
    table.add(webhook('d', 'POST', 'users/:id'));
    table.add(webhook('d', 'PATCH', ':kind/me'));
    const found = table.lookup('PUT', 'users/me');
    expect(found.found).to.equal(false);
    expect(!found.found && [...found.methods].sort()).to.deep.equal(['GET', 'PATCH', 'POST']);
  });

  it('keeps the webhook that took a static address when the one it replaced is removed', () => {
    const table = new RouteTable();
    const before = webhook('old', 'GET', 'hook');
    const after = webhook('new', 'GET', 'hook');
    table.add(before);
    table.add(after);
    table.remove(before);
    expect(reached(table, 'GET', 'hook')).to.equal('new');
    expect(() => table.remove(webhook('never', 'GET', 'never-added'))).not.to.throw();
    table.remove(after);
    expect(table.lookup('GET', 'hook')).to.deep.equal({ found: false, methods: [] });
  });

  it('keeps the webhook that took a parametrised address when the one it replaced is removed', () => {
    const table = new RouteTable();
    const before = webhook('old', 'GET', 'o/:id');
    const after = webhook('new', 'GET', 'o/:orderId');
    table.add(before);
    table.add(after);
    table.remove(before);
    expect(reached(table, 'GET', 'o/1')).to.equal('new');
    expect(() => table.remove(webhook('never', 'GET', 'never/:id'))).not.to.throw();
  });

  it('removing one method of a parametrised path leaves its other methods served', () => {
    const table = new RouteTable();
    const get = webhook('w', 'GET', 'o/:id');
    table.add(get);
    table.add(webhook('w', 'POST', 'o/:id'));
    table.remove(get);
    expect(reached(table, 'POST', 'o/1')).to.equal('w');
    expect(table.lookup('GET', 'o/1')).to.deep.equal({ found: false, methods: ['POST'] });
  });

  it('removing one template leaves the others beginning with the same word served', () => {
    const table = new RouteTable();
    const gone = webhook('gone', 'GET', 'o/:id/lines');
    table.add(gone);
    table.add(webhook('sibling', 'GET', 'o/new/:id'));
    table.remove(gone);
    expect(reached(table, 'GET', 'o/1/lines')).to.equal(undefined);
    expect(reached(table, 'GET', 'o/new/2')).to.equal('sibling');
    table.add(webhook('back', 'GET', 'o/:key/lines'));
    expect(reached(table, 'GET', 'o/1/lines')).to.equal('back');
  });
});
