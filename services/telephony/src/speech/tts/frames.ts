import { FRAME_SAMPLES } from '../../media/codec';

/**
 * Speech chunks of any size into whole 20 ms frames (160 samples): the playback queue pads every
 * clip it is given to a whole frame, so chunks enqueued as they come would each end in a gap.
 */
export class Frames {
  #rest = new Int16Array(0);

  /** Whole frames of what came so far as one array (a multiple of 160 samples, maybe empty); the rest waits. */
  push(chunk: Int16Array): Int16Array {
    const all = new Int16Array(this.#rest.length + chunk.length);
    all.set(this.#rest);
    all.set(chunk, this.#rest.length);
    const whole = all.length - (all.length % FRAME_SAMPLES);
    this.#rest = all.slice(whole);
    return all.subarray(0, whole);
  }

  /** What waits, padded with silence to a whole frame; empty when nothing does. */
  flush(): Int16Array {
    if (this.#rest.length === 0) return this.#rest;
    const frame = new Int16Array(FRAME_SAMPLES);
    frame.set(this.#rest);
    this.#rest = new Int16Array(0);
    return frame;
  }
}

/** A speech stream as exact 160-sample frames, the last one padded with silence. */
export async function* framesOf(stream: AsyncIterable<Int16Array>): AsyncGenerator<Int16Array> {
  const frames = new Frames();
  for await (const chunk of stream) {
    const whole = frames.push(chunk);
    for (let at = 0; at < whole.length; at += FRAME_SAMPLES) yield whole.subarray(at, at + FRAME_SAMPLES);
  }
  const last = frames.flush();
  if (last.length > 0) yield last;
}
