import { SIP_LIMITS } from './message';

// Cuts a TCP byte stream into SIP messages by Content-Length (RFC 3261 18.3). A stream that breaks
// the framing cannot be resynchronised: the caller closes the connection.

export type FrameResult = { ok: true; frames: Buffer[] } | { ok: false; error: string };

const CONTENT_LENGTH = /^(?:content-length|l)[ \t]*:[ \t]*(\d{1,6})[ \t]*$/im;

export class TcpFramer {
  private buffer = Buffer.alloc(0);

  push(chunk: Buffer): FrameResult {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const frames: Buffer[] = [];
    for (;;) {
      this.skipKeepAlives();
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (this.buffer.length > SIP_LIMITS.maxHeaderBytes)
          return { ok: false, error: 'header section too large' };
        return { ok: true, frames };
      }
      if (end > SIP_LIMITS.maxHeaderBytes) return { ok: false, error: 'header section too large' };
      const length = CONTENT_LENGTH.exec(this.buffer.subarray(0, end).toString('latin1'));
      if (!length) return { ok: false, error: 'no Content-Length on a stream transport' };
      const total = end + 4 + Number(length[1]);
      if (total > SIP_LIMITS.maxMessageBytes) return { ok: false, error: 'message too large' };
      if (this.buffer.length < total) return { ok: true, frames };
      frames.push(this.buffer.subarray(0, total));
      this.buffer = this.buffer.subarray(total);
    }
  }

  /** CRLF keep-alives (RFC 5626) between messages carry nothing. */
  private skipKeepAlives(): void {
    let i = 0;
    while (i < this.buffer.length && (this.buffer[i] === 0x0d || this.buffer[i] === 0x0a)) i++;
    if (i > 0) this.buffer = this.buffer.subarray(i);
  }
}
