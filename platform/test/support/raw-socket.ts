import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case (the last of a repeated header). */
  headers: Record<string, string>;
  body: string;
}

/** The complete HTTP/1.1 answers in `data` (bodies framed by Content-Length only). */
export function parseAnswers(data: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at, 'latin1');
    if (headEnd < 0) return answers;
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const end = headEnd + 4 + Number(headers['content-length'] ?? 0);
    if (end > data.length) return answers;
    answers.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: data.subarray(headEnd + 4, end).toString('utf8'),
    });
    at = end;
  }
}

/**
 * A bare client connection, for what fetch cannot do: send part of a request, trickle the rest,
 * hold a connection open. Everything the server sends is kept; `closed` settles when the server
 * (or we) closed the connection.
 */
export class RawConnection {
  data = Buffer.alloc(0);
  readonly closed: Promise<void>;
  private readonly waiters = new Set<() => void>();
  private trickle: NodeJS.Timeout | undefined;

  private constructor(readonly socket: net.Socket) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.notify();
    });
    socket.on('close', () => {
      clearInterval(this.trickle);
      this.notify();
    });
    // A reset by the server is a close too; the test reads what arrived before it.
    socket.on('error', () => {});
  }

  /**
   * Connects from `localAddress` (Linux routes all of 127.0.0.0/8 to itself: one client each). Like
   * a hostile client, it does not close its side when the server closes its own: only the server's
   * full close (or our destroy) ends the connection.
   */
  static open(baseUrl: string, localAddress?: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = net.connect({
        host: url.hostname,
        port: Number(url.port),
        localAddress,
        allowHalfOpen: true,
      });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /** Sends one byte every `everyMs` until the connection closes: a client that never finishes. */
  dribble(byte: string, everyMs: number): void {
    this.trickle = setInterval(() => {
      if (this.socket.writable) this.socket.write(byte);
    }, everyMs);
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  answers(): RawAnswer[] {
    return parseAnswers(this.data);
  }

  /** The `n`th complete answer (1 = the first), once it is in; fails past `withinMs`. */
  async answer(withinMs: number, n = 1): Promise<RawAnswer> {
    await this.until(() => this.answers().length >= n || this.isClosed, withinMs, `answer ${n}`);
    const found = this.answers()[n - 1];
    if (!found) throw new Error(`closed without answer ${n}; received ${JSON.stringify(this.text())}`);
    return found;
  }

  /** Waits until the connection is closed; fails past `withinMs`. */
  async closedWithin(withinMs: number): Promise<void> {
    await this.until(() => this.isClosed, withinMs, 'the close');
  }

  text(): string {
    return this.data.toString('latin1').slice(0, 500);
  }

  destroy(): void {
    clearInterval(this.trickle);
    this.socket.destroy();
  }

  private until(done: () => boolean, withinMs: number, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${what} within ${withinMs} ms; received ${JSON.stringify(this.text())}`));
      }, withinMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
