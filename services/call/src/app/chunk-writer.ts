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

  write(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const most = this.length + text.length * 3;
    if (most > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(most, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length);
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
