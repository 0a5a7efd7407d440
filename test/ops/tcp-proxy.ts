import net from 'node:net';

/**
 * A TCP proxy that stages database outages on a fixed port:
 * - `stop()` closes the listener and destroys every open connection, as a server crash or a
 *   refused network would look to the client; `start()` opens the same port again;
 * - `silence()` keeps every connection open but lets nothing through, as a network partition
 *   looks (the peer never answers); `resume()` forwards new connections again while the
 *   silenced ones stay dead, as half-open connections do;
 * - `cutOn(text)` cuts a connection the moment its client sends `text` (forwarded, never
 *   answered), as a crash in the middle of one chosen statement looks.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private boundPort = 0;
  private silent = false;
  private cutText: string | undefined;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** The listening port; stable across stop/start. */
  get port(): number {
    return this.boundPort;
  }

  /** Listens on `port` (0 = any free port the first time, the same port afterwards). */
  async start(port = this.boundPort): Promise<number> {
    this.silent = false;
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.boundPort = (server.address() as net.AddressInfo).port;
    return this.boundPort;
  }

  /** Refuses new connections and cuts the open ones. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Lets nothing through any more, in either direction, while keeping every connection open. */
  silence(): void {
    this.silent = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.removeAllListeners('data');
      socket.on('data', () => {});
    }
  }

  /** Cuts a connection (both sides) as soon as its client sends `text`; undefined stops cutting. */
  cutOn(text: string | undefined): void {
    this.cutText = text;
  }

  /** Forwards new connections again; the connections silenced before stay silent. */
  resume(): void {
    this.silent = false;
  }

  private accept(client: net.Socket): void {
    this.track(client);
    if (this.silent) {
      client.on('data', () => {});
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    this.track(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.pipe(upstream).pipe(client);
    // After the pipe's own listener: the chunk is forwarded, then the connection cut before any answer.
    client.on('data', (chunk: Buffer) => {
      if (this.cutText !== undefined && chunk.includes(this.cutText)) cut();
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
  }
}
