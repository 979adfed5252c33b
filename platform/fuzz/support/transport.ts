import http from 'node:http';
import net from 'node:net';

/**
 * A request is a hang when its whole answer has not arrived by then: answers take milliseconds, a
 * hang forever; the bound leaves a loaded machine its stalls.
 */
export const RESPONSE_TIMEOUT_MS = 15_000;
/** Bodies are read to the end but kept only up to this size (the oracle never needs more). */
const KEEP_BYTES = 8 * 1024 * 1024;

/**
 * Every request leaves from its own loopback address, in turn: the fuzz is not about the per-IP
 * budget of unauthenticated requests (300 a minute), which one address would spend in seconds and
 * then turn every later case into the same 429. 127.0.0.0/8 is all loopback on Linux.
 */
const SOURCE_ADDRESSES = Array.from({ length: 200 }, (_, i) => `127.0.0.${i + 2}`);
let nextSource = 0;
let loopbackAliases: boolean | undefined;

function sourceAddress(): string | undefined {
  if (loopbackAliases === false) return undefined;
  nextSource = (nextSource + 1) % SOURCE_ADDRESSES.length;
  return SOURCE_ADDRESSES[nextSource];
}

/** Whether this machine routes 127.0.x.y to itself (Linux does; macOS only 127.0.0.1). */
export async function probeLoopbackAliases(port: number): Promise<boolean> {
  loopbackAliases = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: SOURCE_ADDRESSES[0] });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
  return loopbackAliases;
}

export interface FuzzResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps every value. */
  headers: Record<string, string[]>;
  body: Buffer;
}

export type Outcome =
  | { kind: 'responses'; responses: FuzzResponse[]; ms: number }
  /** A text/event-stream was opened (a live subscription): its headers are the answer. */
  | { kind: 'stream'; responses: FuzzResponse[]; ms: number }
  | { kind: 'hang'; ms: number; partial: string }
  /** The server closed the connection without a complete answer. */
  | { kind: 'closed'; ms: number; partial: string; error?: string }
  /** Our own client refused to send the request (not the server's doing). */
  | { kind: 'unsendable'; error: string };

export interface HttpRequest {
  method: string;
  /** Path and query string, already encoded as they go on the wire. */
  target: string;
  /** Raw header pairs, sent in this order (repeats allowed). */
  headers: [string, string][];
  body?: Buffer | undefined;
}

function collectHeaders(raw: string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    headers[name] = [...(headers[name] ?? []), raw[i + 1]!];
  }
  return headers;
}

/** One request over Node's HTTP client, on a fresh connection. */
export function sendHttp(port: number, request: HttpRequest): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let partial = '';
    const flat: string[] = [];
    for (const [name, value] of request.headers) flat.push(name, value);
    if (!request.headers.some(([name]) => name.toLowerCase() === 'host'))
      flat.push('Host', `127.0.0.1:${port}`);
    if (
      request.body &&
      !request.headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))
    ) {
      flat.push('Content-Length', String(request.body.length));
    }
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.target,
        headers: flat as unknown as http.OutgoingHttpHeaders,
        setHost: false,
        agent: false,
        localAddress: sourceAddress(),
        insecureHTTPParser: true,
      });
    } catch (error) {
      resolve({ kind: 'unsendable', error: (error as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      finish({ kind: 'hang', ms: elapsed(), partial });
    }, RESPONSE_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ERR_INVALID_CHAR' || error.code === 'ERR_INVALID_HTTP_TOKEN') {
        finish({ kind: 'unsendable', error: error.message });
      } else
        finish({ kind: 'closed', ms: elapsed(), partial, error: `${error.code ?? ''} ${error.message}` });
    });
    req.on('response', (res) => {
      const response: FuzzResponse = {
        status: res.statusCode ?? 0,
        headers: collectHeaders(res.rawHeaders),
        body: Buffer.alloc(0),
      };
      partial = `HTTP ${response.status}`;
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.destroy();
        req.destroy();
        finish({ kind: 'stream', responses: [response], ms: elapsed() });
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < KEEP_BYTES) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on('end', () => {
        response.body = Buffer.concat(chunks);
        finish({ kind: 'responses', responses: [response], ms: elapsed() });
      });
      res.on('error', (error) => finish({ kind: 'closed', ms: elapsed(), partial, error: error.message }));
    });
    try {
      req.end(request.body);
    } catch (error) {
      finish({ kind: 'unsendable', error: (error as Error).message });
    }
  });
}

/** Bytes for a bare socket, and whether they make at least one whole request. */
export interface RawRequest {
  bytes: Buffer;
  /**
   * False when the bytes may stop mid-request (a body shorter than its Content-Length, a chunked
   * body without its last chunk, a request line without its end): the server may rightly wait for
   * the rest, and close when the client gives up. True: the server must answer.
   */
  complete: boolean;
  /** How many answers the bytes call for (pipelined requests: more than one). */
  answers: number;
  /** The target of each request in the bytes, when there are several (each answer's surface). */
  targets?: string[];
}

/** How long an incomplete request is left waiting for the rest before we end our side. */
const INCOMPLETE_WAIT_MS = 300;

/**
 * Bytes no well-behaved client sends (bad request lines, duplicate or oversized headers, broken
 * chunking, lying Content-Length), over a bare socket. Every answer on the connection is parsed (a
 * lying Content-Length makes the rest of the bytes a second request). The socket stays open while
 * waiting (Node drops requests whose client half-closed): a complete request must be answered
 * within the timeout; an incomplete one may instead be waited on until we give up.
 */
export function sendRaw(port: number, request: RawRequest): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let data = Buffer.alloc(0);
    let idle: NodeJS.Timeout | undefined;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(idle);
      socket.destroy();
      resolve(outcome);
    };
    const settle = (error?: string) => {
      const parsed = parseResponses(data);
      if (parsed.responses.length > 0 && parsed.complete) {
        finish({ kind: 'responses', responses: parsed.responses, ms: elapsed() });
      } else {
        finish({
          kind: 'closed',
          ms: elapsed(),
          partial: data.subarray(0, 300).toString('latin1'),
          ...(error ? { error } : {}),
        });
      }
    };
    /** Done once every answer is in; an incomplete request gets a moment, then we end our side. */
    const rearm = () => {
      clearTimeout(idle);
      const answered = parseResponses(data);
      // 101 switches the connection to another protocol: it is the last HTTP answer on it.
      const final = answered.responses.filter((r) => r.status >= 200 || r.status === 101).length;
      if (answered.complete && final >= request.answers) settle();
      else if (!request.complete) idle = setTimeout(() => socket.end(), INCOMPLETE_WAIT_MS);
    };
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: sourceAddress() }, () => {
      socket.write(request.bytes);
      rearm();
    });
    const timer = setTimeout(() => {
      finish({ kind: 'hang', ms: elapsed(), partial: data.subarray(0, 300).toString('latin1') });
    }, RESPONSE_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      if (data.length < KEEP_BYTES) data = Buffer.concat([data, chunk]);
      rearm();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => settle(`${error.code ?? ''} ${error.message}`));
    socket.on('close', () => settle());
  });
}

/** Splits a connection's bytes into HTTP/1.1 responses (Content-Length, chunked, or to the end). */
export function parseResponses(data: Buffer): { responses: FuzzResponse[]; complete: boolean } {
  const responses: FuzzResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', at, 'latin1');
    if (headEnd < 0) return { responses, complete: false };
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) return { responses, complete: false };
    const raw: string[] = [];
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) raw.push(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    const headers = collectHeaders(raw);
    const status = Number(match[1]);
    let bodyStart = headEnd + 4;
    let body: Buffer;
    const length = headers['content-length']?.[0];
    if (status === 304 || status === 204 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
    } else if (length !== undefined) {
      const end = bodyStart + Number(length);
      if (end > data.length) return { responses, complete: false };
      body = data.subarray(bodyStart, end);
      bodyStart = end;
    } else if ((headers['transfer-encoding']?.[0] ?? '').toLowerCase() === 'chunked') {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', bodyStart, 'latin1');
        if (lineEnd < 0) return { responses, complete: false };
        const size = Number.parseInt(data.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) return { responses, complete: false };
        const chunkStart = lineEnd + 2;
        if (size === 0) {
          const trailerEnd = data.indexOf('\r\n\r\n', lineEnd, 'latin1');
          bodyStart = trailerEnd < 0 ? data.length : trailerEnd + 4;
          break;
        }
        if (chunkStart + size + 2 > data.length) return { responses, complete: false };
        chunks.push(data.subarray(chunkStart, chunkStart + size));
        bodyStart = chunkStart + size + 2;
      }
      body = Buffer.concat(chunks);
    } else {
      body = data.subarray(bodyStart);
      bodyStart = data.length;
    }
    responses.push({ status, headers, body });
    // After 101 the connection speaks another protocol (a WebSocket's frames follow).
    if (status === 101) return { responses, complete: true };
    at = bodyStart;
  }
  return { responses, complete: true };
}
