import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ADDRESS_NOT_ALLOWED, createGuardedLookup, isAllowedAddress } from '@voice/shared';
import { type AttemptOutcome, isSuccessStatus } from '../domain/policy';

/** How much of a receiver's answer is read before it is discarded. */
export const RESPONSE_BODY_LIMIT = 4096;
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
export const ADDRESS_NOT_ALLOWED_ERROR = 'address not allowed';

export interface SenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** Total time of one attempt, connect to last byte read (spec: 10 s). */
  timeoutMs?: number;
}

export interface OutgoingRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * One POST of a webhook: the resolved address is checked at connect time (and IP-literal hosts
 * before connecting), redirects are not followed, at most RESPONSE_BODY_LIMIT bytes are read.
 */
export class WebhookSender {
  private readonly lookup;
  private readonly timeoutMs: number;

  constructor(private readonly options: SenderOptions) {
    this.lookup = createGuardedLookup({ allowPrivate: options.allowPrivate });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  }

  send(request: OutgoingRequest): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ ok: false, statusCode: null, error: 'invalid url' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return Promise.resolve({ ok: false, statusCode: null, error: 'unsupported scheme' });
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !isAllowedAddress(host, { allowPrivate: this.options.allowPrivate }))
      return Promise.resolve({ ok: false, statusCode: null, error: ADDRESS_NOT_ALLOWED_ERROR });

    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        resolve(outcome);
      };
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, {
        method: 'POST',
        agent: false,
        lookup: this.lookup,
        headers: { ...request.headers, 'Content-Length': String(request.body.length) },
      });
      const timer = setTimeout(
        () => finish({ ok: false, statusCode: null, error: `timeout after ${this.timeoutMs} ms` }),
        this.timeoutMs,
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        const notAllowed = error.code === ADDRESS_NOT_ALLOWED;
        finish({
          ok: false,
          statusCode: null,
          error: notAllowed ? ADDRESS_NOT_ALLOWED_ERROR : (error.code ?? error.message),
        });
      });
      req.on('response', (res) => {
        const statusCode = res.statusCode ?? 0;
        let read = 0;
        const done = () =>
          finish(
            isSuccessStatus(statusCode)
              ? { ok: true, statusCode }
              : { ok: false, statusCode, error: `HTTP ${statusCode}` },
          );
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= RESPONSE_BODY_LIMIT) done();
        });
        res.on('end', done);
        res.on('error', done);
      });
      req.end(request.body);
    });
  }
}
