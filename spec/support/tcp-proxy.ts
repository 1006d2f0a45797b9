/**
 * A loopback TCP proxy in front of a server, to cut one client off while others still reach it: `cut()` drops the
 * open connections and black-holes new ones (accepted, never answered, as a lost network looks), `restore()` lets
 * traffic through again. `switchTo()` points it at another server, as a cloud database endpoint moves to the promoted
 * standby on a failover: the open connections are dropped and new ones reach the new target.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;
  #targetPort: number;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
    this.#server = createServer((client) => {
      this.#track(client);
      if (this.#cut) return;
      const upstream = connect(this.#targetPort, '127.0.0.1');
      this.#track(upstream);
      client.pipe(upstream).pipe(client);
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
  }

  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  restore(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#cut = false;
  }

  switchTo(targetPort: number): void {
    this.#targetPort = targetPort;
    for (const socket of this.#sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.#sockets.delete(socket));
  }
}
