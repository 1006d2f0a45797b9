/**
 * Ports for a child process that listens on ports it is told (PORT=…), chosen below the kernel's ephemeral range:
 * a port probed free inside that range can be taken a moment later by an outgoing connection (the child's own
 * connection to Redis did, in CI), and the child then exits with "Port … is in use".
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const canListen = (port: number): Promise<boolean> => new Promise((resolve) => {
  const probe = createServer();
  probe.once('error', () => resolve(false));
  probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
});

/** The first of `count` consecutive free ports, all below the ephemeral range. */
export async function freeListenPorts(count: number): Promise<number> {
  const high = ephemeralLow() - count;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const first = 10_000 + Math.floor(Math.random() * (high - 10_000));
    let free = true;
    for (let port = first; free && port < first + count; port += 1) free = await canListen(port);
    if (free) return first;
  }
  throw new Error(`No ${count} consecutive free ports found below ${high + count}.`);
}
