import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIP, type Server, Socket } from 'node:net';
import type { SipTransport } from '@voice/shared/contracts';
import { parseMessage, type SipMessage, serializeMessage } from './message';
import type { SipLogger } from './options';
import { TcpFramer } from './tcp-framer';

// UDP and TCP for SIP on one local port: one datagram socket, a TCP listener for requests the far
// end opens a connection for, and one TCP connection per far end, reused both ways.

/** A far end at an IP address (names are resolved before they get here). */
export interface Peer {
  host: string;
  port: number;
  transport: SipTransport;
}

export interface TransportEvents {
  onMessage(message: SipMessage, from: Peer): void;
  /** A TCP connection to `peer` failed or closed; its transactions cannot finish. */
  onConnectionLost(peer: Peer, error: Error): void;
}

const MAX_TCP_CONNECTIONS = 256;
const IDLE_TCP_MS = 10 * 60_000;

export class SipTransports {
  private udp: UdpSocket | null = null;
  private server: Server | null = null;
  private readonly connections = new Map<string, Socket>();
  private closed = false;
  port = 0;

  constructor(
    private readonly bindAddress: string,
    private readonly events: TransportEvents,
    private readonly logger: SipLogger,
  ) {}

  /** Binds UDP on `port` (0: any) and TCP on the same port number. */
  /**
   * Binds UDP and TCP on one port. With port 0 the UDP socket picks it, and TCP may find that
   * port taken (an outgoing connection's ephemeral port): then both try again on a new one.
   */
  async start(port: number): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bindBoth(port);
      } catch (error) {
        const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
        this.udp?.close();
        this.udp = null;
        if (port !== 0 || !inUse || attempt >= 10) throw error;
      }
    }
  }

  private async bindBoth(port: number): Promise<number> {
    const udp = createSocket({ type: isIP(this.bindAddress) === 6 ? 'udp6' : 'udp4' });
    this.udp = udp;
    udp.on('message', (data, rinfo) =>
      this.receive(data, { host: rinfo.address, port: rinfo.port, transport: 'udp' }),
    );
    udp.on('error', (error) => this.logger.warn({ err: error.message }, 'sip udp socket error'));
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, this.bindAddress, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    this.port = udp.address().port;
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.bindAddress, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return this.port;
  }

  send(message: SipMessage, to: Peer): void {
    if (this.closed) return;
    const data = serializeMessage(message);
    if (to.transport === 'udp') {
      this.udp?.send(data, to.port, to.host, (error) => {
        if (error)
          this.logger.warn({ err: error.message, to: `${to.host}:${to.port}` }, 'sip udp send failed');
      });
      return;
    }
    this.connection(to).write(data);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const socket of this.connections.values()) socket.destroy();
    this.connections.clear();
    await Promise.all([
      new Promise<void>((resolve) => (this.udp ? this.udp.close(() => resolve()) : resolve())),
      new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve())),
    ]);
  }

  private receive(data: Buffer, from: Peer): void {
    const parsed = parseMessage(data);
    if (!parsed.ok) {
      this.logger.debug({ from: `${from.host}:${from.port}`, error: parsed.error }, 'sip message dropped');
      return;
    }
    try {
      this.events.onMessage(parsed.message, from);
    } catch (error) {
      // One bad message must not take down the socket handler (or the process).
      this.logger.warn({ err: (error as Error).message }, 'sip message handler failed');
    }
  }

  private connection(to: Peer): Socket {
    const key = `${to.host}:${to.port}`;
    const existing = this.connections.get(key);
    if (existing && !existing.destroyed) return existing;
    const socket = new Socket();
    this.adopt(socket, key, to);
    socket.connect(to.port, to.host);
    return socket;
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= MAX_TCP_CONNECTIONS || !socket.remoteAddress || !socket.remotePort) {
      socket.destroy();
      return;
    }
    const peer: Peer = { host: socket.remoteAddress, port: socket.remotePort, transport: 'tcp' };
    this.adopt(socket, `${peer.host}:${peer.port}`, peer);
  }

  private adopt(socket: Socket, key: string, peer: Peer): void {
    this.connections.set(key, socket);
    const framer = new TcpFramer();
    socket.setTimeout(IDLE_TCP_MS, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      const result = framer.push(chunk);
      if (!result.ok) {
        this.logger.debug({ from: key, error: result.error }, 'sip tcp stream broken; closing');
        socket.destroy(new Error(`SIP stream from ${key}: ${result.error}`));
        return;
      }
      for (const frame of result.frames) this.receive(frame, peer);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.connections.get(key) === socket) this.connections.delete(key);
      if (!this.closed) this.events.onConnectionLost(peer, socket.errored ?? new Error('connection closed'));
    });
  }
}
