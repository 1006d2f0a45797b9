/**
 * A request body sent on a fake clock, for the specs of bodyTimeoutMs and minBodyRate: the middleware's body sweep
 * (its interval and Date.now()) runs on the fake clock while the bytes travel on a real socket, so a spec says how
 * much time passes between the parts and no wall-clock duration enters an assertion.
 */
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { firstAnswer, writePostHead, type SocketAnswer } from './raw-http.js';
import { timersArmed, until, withFakeTimers } from './fake-clock.js';

/** Bytes to send (once the server has read the ones before), or the clock moved on by `ticks` of the sweep's interval. */
export type BodyStep = { write: string | Buffer } | { ticks: number };

/**
 * POSTs `path` announcing `length` body bytes and follows `steps`; resolves the first answer. The middleware must
 * give the body a sweep of its own (a pace no other spec uses: sweeps are shared by interval) and run no other
 * interval timer (maxRunMs 0), so that the one fake interval timer is the body's sweep. Gives up after 5 s real time.
 */
export function bodyOnFakeClock(server: Server, path: string, headers: Record<string, string>, length: number,
  sweepMs: number, steps: BodyStep[]): Promise<SocketAnswer> {
  return withFakeTimers(async (clock) => {
    let received: Socket | undefined;
    server.once('connection', (socket: Socket) => { received = socket; });
    const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
    const answer = firstAnswer(socket);
    writePostHead(socket, path, headers, length);
    let armed = false;
    try {
      for (const step of steps) {
        if (socket.destroyed) break;
        if ('write' in step) {
          const before = received?.bytesRead ?? 0;
          socket.write(step.write);
          await until(() => socket.destroyed || (received?.bytesRead ?? 0) > before, 'the server read the bytes');
        } else {
          if (!armed) await timersArmed(clock, 1); // the body is being read: its sweep looks at it every tick
          armed = true;
          for (let tick = 0; tick < step.ticks; tick += 1) clock.tick(sweepMs);
        }
      }
      let giveUp: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => { giveUp = setTimeout(() => reject(new Error('no answer within 5 s')), 5000); });
      return await Promise.race([answer, late]).finally(() => clearTimeout(giveUp));
    } finally {
      socket.destroy();
      // A tick that finds nothing being read stops the sweep: none is left behind on a clock that is gone.
      await until(() => { clock.tick(sweepMs); return clock.countTimers() === 0; }, 'the body sweep stopped');
    }
  }, ['setInterval', 'clearInterval', 'Date']);
}
