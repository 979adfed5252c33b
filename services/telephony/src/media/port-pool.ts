import { createSocket, type Socket } from 'node:dgram';

export interface PortPoolOptions {
  /** RTP_PORT_MIN..RTP_PORT_MAX; RTP takes the even ports, RTCP the odd port above each. */
  min: number;
  max: number;
  /** The local address both sockets bind to. */
  host: string;
}

/** A bound RTP/RTCP socket pair; `release()` closes both and returns the ports to the pool. */
export interface RtpPortPair {
  readonly rtpPort: number;
  readonly rtcpPort: number;
  readonly rtp: Socket;
  readonly rtcp: Socket;
  release(): void;
}

export class PortPoolExhaustedError extends Error {
  override readonly name = 'PortPoolExhaustedError';
}

/**
 * Hands out even RTP ports (RTCP on +1) from a fixed range. A port another process holds is
 * skipped rather than failing the call; the search starts after the last port handed out, so a
 * port just released is not reused at once (late packets of the old call would land in the new).
 */
export class RtpPortPool {
  readonly #inUse = new Set<number>();
  readonly #first: number;
  readonly #count: number;
  #cursor = 0;

  constructor(private readonly options: PortPoolOptions) {
    const { min, max } = options;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1024 || max > 65535 || max < min) {
      throw new RangeError(`invalid RTP port range ${min}..${max}`);
    }
    this.#first = min % 2 === 0 ? min : min + 1;
    this.#count = Math.max(0, Math.floor((max - this.#first + 1) / 2));
    if (this.#count === 0) throw new RangeError(`RTP port range ${min}..${max} holds no even/odd pair`);
  }

  get capacity(): number {
    return this.#count;
  }

  get inUse(): number {
    return this.#inUse.size;
  }

  async acquire(): Promise<RtpPortPair> {
    for (let tried = 0; tried < this.#count; tried++) {
      const port = this.#first + 2 * ((this.#cursor + tried) % this.#count);
      if (this.#inUse.has(port)) continue;
      this.#inUse.add(port);
      const pair = await this.#bindPair(port);
      if (pair) {
        this.#cursor = (this.#cursor + tried + 1) % this.#count;
        return pair;
      }
      this.#inUse.delete(port);
    }
    throw new PortPoolExhaustedError(
      `no free RTP port pair in ${this.options.min}..${this.options.max} (${this.#inUse.size} in use)`,
    );
  }

  async #bindPair(port: number): Promise<RtpPortPair | undefined> {
    const family = this.options.host.includes(':') ? 'udp6' : 'udp4';
    const rtp = await bind(family, this.options.host, port);
    if (!rtp) return undefined;
    const rtcp = await bind(family, this.options.host, port + 1);
    if (!rtcp) {
      rtp.close();
      return undefined;
    }
    let released = false;
    return {
      rtpPort: port,
      rtcpPort: port + 1,
      rtp,
      rtcp,
      release: () => {
        if (released) return;
        released = true;
        for (const s of [rtp, rtcp]) {
          try {
            s.close();
          } catch {
            // already closed by an error; the port is free either way
          }
        }
        this.#inUse.delete(port);
      },
    };
  }
}

/** Binds one UDP socket, or answers undefined when the port is taken. */
function bind(type: 'udp4' | 'udp6', host: string, port: number): Promise<Socket | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type });
    const onError = (err: NodeJS.ErrnoException) => {
      socket.close();
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(undefined);
      else reject(err);
    };
    socket.once('error', onError);
    socket.bind(port, host, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
