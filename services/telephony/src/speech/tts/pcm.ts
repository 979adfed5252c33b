// 8 kHz 16-bit mono PCM as it arrives in byte chunks of any size, and back into one array.

/** Turns little-endian 16-bit bytes, cut anywhere, into samples; an odd byte waits for the next chunk. */
export class PcmDecoder {
  #carry: number | undefined;

  decode(bytes: Uint8Array): Int16Array {
    let data = bytes;
    if (this.#carry !== undefined) {
      data = new Uint8Array(bytes.length + 1);
      data[0] = this.#carry;
      data.set(bytes, 1);
    }
    const samples = new Int16Array(data.length >> 1);
    const view = new DataView(data.buffer, data.byteOffset, samples.length * 2);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    this.#carry = data.length % 2 === 1 ? data[data.length - 1] : undefined;
    return samples;
  }
}

/** Every chunk of a speech stream as one array (the whole text, for callers that want it at once). */
export async function collectSpeech(
  stream: AsyncIterable<Int16Array> | Iterable<Int16Array>,
): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const out = new Int16Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
