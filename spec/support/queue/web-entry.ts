/**
 * A web instance of queue mode as a process of its own (the crash spec SIGKILLs it): the server of web.ts on a
 * free port, configured through the environment (DATABASE_URL, a postgres:// URL, puts it on PostgreSQL instead of
 * REDIS_URL's Redis), which tells its parent the port over IPC once it takes calls.
 */
import { startWeb, type SentinelAddress } from './web.js';

const web = await startWeb({
  ...(process.env.DATABASE_URL === undefined ? { redisUrl: process.env.REDIS_URL as string } : { databaseUrl: process.env.DATABASE_URL }),
  queueName: process.env.QUEUE_NAME as string,
  enqueueTimeoutMs: Number(process.env.ENQUEUE_TIMEOUT_MS ?? 2000),
  idempotent: process.env.IDEMPOTENT === '1',
  ...(process.env.SENTINEL === undefined ? {} : { sentinel: JSON.parse(process.env.SENTINEL) as SentinelAddress }),
  ...(process.env.REPLICAS === undefined ? {} : { replicas: Number(process.env.REPLICAS) }),
});
// The parent gone (a crashed mocha run): nobody will kill us, so we leave by ourselves.
process.on('disconnect', () => { void web.close().finally(() => process.exit(0)); });
process.send?.({ type: 'ready', port: web.port });
