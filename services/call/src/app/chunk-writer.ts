import type { ExportChunk } from '@voice/shared';

/**
 * An export chunk's bytes as its lines are added, written straight into one buffer (no string of
 * the whole chunk, no second copy to encode it), and where each recording link goes in them.
 */
export class ChunkWriter {
  private buffer: Buffer;
  /** Bytes written. */
  length = 0;
  private readonly links: [number, string][] = [];

  constructor(expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(expectedBytes);
  }

  write(text: string | Buffer): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.room(typeof text === 'string' ? text.length * 3 : text.length);
    this.length +=
      typeof text === 'string' ? this.buffer.write(text, this.length) : text.copy(this.buffer, this.length);
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.length + bytes, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** The call whose link goes here, at the byte written next. */
  link(callId: string): void {
    this.links.push([this.length, callId]);
  }

  /** Forgets everything written from `length` on (a line that does not fit after all). */
  truncate(length: number): void {
    this.length = length;
    while (this.links.length > 0 && this.links.at(-1)![0] >= length) this.links.pop();
  }

  encode(): Pick<ExportChunk, 'data' | 'links'> {
    return { data: this.buffer.toString('base64', 0, this.length), links: this.links };
  }
}
