/**
 * The test listens' atomic steps on Redis (`ListenStore`): one guarded script each (LISTEN, CLAIM, END, RELAY), whose
 * log entry every instance applies; a relayed payload is one expiring key, read once with GETDEL.
 */
import type { ListenRecord } from '../webhooks/registry/shared/listen-mirror.js';
import { RELAY_TTL_MS, type ListenChange, type ListenStore, type ListenStored, type RelayStep } from '../webhooks/registry/shared/test-listens.js';
import type { RegistryKeys } from './keys.js';
import type { LogEntry } from './log-reader.js';
import { CLAIM, END, LISTEN, RELAY, type Script } from './scripts.js';

/** What the registry lends: its guarded script runner, and a plain command. */
export interface RedisListenAccess {
  keys: RegistryKeys;
  change(script: Script, keys: string[], args: string[], doing: string): Promise<unknown[]>;
  command(args: string[], doing: string): Promise<unknown>;
}

export function redisListenStore({ keys, change, command }: RedisListenAccess): ListenStore {
  const scriptKeys = [keys.listens, keys.testRoutes, keys.testWorkflows];
  return {
    async listen(listen: ListenRecord['listen'], timeoutMs: number): Promise<ListenStored> {
      const reply = await change(LISTEN, scriptKeys,
        [listen.listenId, listen.workflowId, JSON.stringify(listen), String(timeoutMs), ...listen.routeKeys], 'starting a test listen');
      if (reply[0] === 'CONFLICT') return { stored: false, key: String(reply[1]), holder: JSON.parse(String(reply[2])) as ListenRecord };
      return { stored: true, expiresAt: Number(reply[1]), replaced: String(reply[3]) === '' ? undefined : String(reply[3]) };
    },
    async claim(listenId: string): Promise<boolean> {
      return (await change(CLAIM, scriptKeys, [listenId], 'claiming a test call'))[0] === 'OK';
    },
    async end(listenId: string, reason: 'timedOut' | 'cancelled'): Promise<boolean> {
      const doing = reason === 'timedOut' ? 'ending a test listen whose window passed' : 'cancelling a test listen';
      return (await change(END, scriptKeys, [listenId, reason], doing))[0] === 'OK';
    },
    async relay(listenId: string, step: RelayStep, payload: string): Promise<void> {
      await change(RELAY, [keys.relay(listenId, step)], [listenId, step, payload, String(RELAY_TTL_MS)], 'relaying a test call to the instance that listens');
    },
    // Read once and gone: the relayed call holds the caller's headers and body.
    async take(listenId: string, step: RelayStep): Promise<string | null> {
      return await command(['GETDEL', keys.relay(listenId, step)], 'reading a relayed test call') as string | null;
    },
  };
}

/** A log entry about test listens, as the shared test listens read it. */
export function listenChange({ fields }: LogEntry): ListenChange {
  const { op, listen = '' } = fields;
  if (op === 'listen') return { op, record: JSON.parse(listen) as ListenRecord };
  if (op === 'unlisten') return { op, listenId: listen, reason: String(fields.reason) };
  if (op === 'arrived' || op === 'settled') return { op, listenId: listen };
  throw new Error(`unknown change "${String(op)}"`);
}
