/**
 * The console's event stream asked with HEAD, as a monitor or a proxy's health check asks it: the answer carries the
 * stream's headers and ends, so the connection is closed when the client asked for that, in every host.
 */
import { connect } from 'node:net';
import { expect } from 'chai';
import { CONSOLE_BASE, CONSOLE_HOSTS, startConsoleApp, type ConsoleApp } from '../support/console-app.js';

/** Sends one request with `Connection: close` and resolves with everything the server wrote before it closed. */
function rawExchange(origin: string, head: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.once('error', reject);
  });
}

for (const host of CONSOLE_HOSTS) {
  describe(`HEAD of the console's event stream in ${host}`, () => {
    let app: ConsoleApp;
    before(async () => { app = await startConsoleApp({ host }); });
    after(() => app?.close());

    it('answers with the stream\'s headers and ends the answer, instead of leaving the client waiting', async () => {
      const answer = await rawExchange(app.origin, `HEAD ${CONSOLE_BASE}/api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      const [status, ...headers] = answer.split('\r\n');
      expect(status).to.equal('HTTP/1.1 200 OK');
      expect(headers).to.include('content-type: text/event-stream; charset=utf-8');
      expect(answer.endsWith('\r\n\r\n'), answer).to.equal(true);
    });
  });
}
