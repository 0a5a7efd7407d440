import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../errors.js';
import { rawErrorAnswer } from './client-error.js';

export interface ConnectionCaps {
  /** Open connections in all. */
  readonly maxConnections: number;
  /** Open connections from one TCP peer address (0: no cap). */
  readonly maxConnectionsPerAddress: number;
  /** In a drain, how long an idle keep-alive connection is kept for a request already on its way. */
  readonly drainIdleMs: number;
}

interface Connection {
  readonly socket: Socket;
  readonly address: string;
  /** Requests received and not yet answered. */
  busy: number;
}

/**
 * Every open connection by peer address, with the requests each is answering. It caps them so
 * that a handful of addresses cannot take every connection from the others:
 * - past `maxConnectionsPerAddress` from one address, a new connection is answered 429 and closed;
 * - at `maxConnections` in all, a new connection takes the place of the oldest idle one (waiting
 *   for its request, a slow header or a keep-alive) of the address holding the most, if that
 *   address holds more than the newcomer's: connections are shared out evenly between addresses
 *   rather than first come, first served. Else the newcomer is answered 503 and closed.
 * No connection is cut while a request on it is being answered.
 *
 * It also drains them on shutdown without racing clients (see `drain`).
 */
export class ConnectionRegistry {
  private readonly byAddress = new Map<string, Set<Connection>>();
  private readonly bySocket = new WeakMap<Socket, Connection>();
  private open = 0;
  private draining: NodeJS.Timeout | undefined;

  constructor(
    server: Server,
    private readonly caps: ConnectionCaps,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const connection = this.bySocket.get(request.socket);
      if (!connection) return;
      connection.busy++;
      response.once('close', () => {
        connection.busy--;
      });
    });
    // Node's server.close() closes idle keep-alive connections at once: a client sending a request
    // on one at that moment (it cannot know) gets it reset. Closing drains them instead.
    server.closeIdleConnections = () => this.drain();
  }

  /**
   * Stops keeping connections alive, without cutting a request already sent: a connection busy
   * with a request closes after its answer (the server then answers `Connection: close`), and an
   * idle one stays open `drainIdleMs` for a request already on its way (answered the same way),
   * then closes. A client that sends later, as at any keep-alive timeout, may find it closed.
   */
  drain(): void {
    if (this.draining) return;
    this.draining = setTimeout(() => {
      for (const connections of this.byAddress.values()) {
        for (const connection of connections) if (connection.busy === 0) connection.socket.destroy();
      }
    }, this.caps.drainIdleMs);
    this.draining.unref();
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const connection: Connection = { socket, address, busy: 0 };
    let peers = this.byAddress.get(address);
    if (!peers) {
      peers = new Set();
      this.byAddress.set(address, peers);
    }
    peers.add(connection);
    this.open++;
    this.bySocket.set(socket, connection);
    socket.once('close', () => this.forget(connection));
    const perAddress = this.caps.maxConnectionsPerAddress;
    if (perAddress > 0 && peers.size > perAddress) {
      this.refuse(connection, new AppError('RATE_LIMITED', 'Too many open connections from this address'));
    } else if (this.open > this.caps.maxConnections) {
      const evicted = this.idleOfBusiestOtherThan(address, peers.size);
      if (evicted) {
        this.forget(evicted);
        evicted.socket.destroy();
      } else {
        this.refuse(
          connection,
          new AppError('SERVICE_UNAVAILABLE', 'The server has too many open connections'),
        );
      }
    }
  }

  /** The oldest idle connection of the address with the most, if it has more than `count`. */
  private idleOfBusiestOtherThan(address: string, count: number): Connection | undefined {
    let found: Connection | undefined;
    let most = count;
    for (const [peer, connections] of this.byAddress) {
      if (peer === address || connections.size <= most) continue;
      // A Set iterates in insertion order: the first idle one is the oldest.
      for (const connection of connections) {
        if (connection.busy === 0) {
          found = connection;
          most = connections.size;
          break;
        }
      }
    }
    return found;
  }

  private refuse(connection: Connection, error: AppError): void {
    this.forget(connection);
    connection.socket.end(rawErrorAnswer(error, { 'Retry-After': '1' }));
    connection.socket.destroySoon();
  }

  private forget(connection: Connection): void {
    const peers = this.byAddress.get(connection.address);
    if (!peers?.delete(connection)) return;
    this.open--;
    if (peers.size === 0) this.byAddress.delete(connection.address);
  }
}
