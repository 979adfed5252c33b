import { FRAME_SAMPLES } from './codec';

interface Clip {
  pcm: Int16Array;
  offset: number;
  done: (completed: boolean) => void;
}

/** Clips of 8 kHz PCM waiting to be spoken into the call, handed out 20 ms at a time. */
export class PlaybackQueue {
  #clips: Clip[] = [];

  get playing(): boolean {
    return this.#clips.length > 0;
  }

  /** Resolves true once the clip has been sent in full, false when it was cut short by clear(). */
  enqueue(pcm: Int16Array): Promise<boolean> {
    if (pcm.length === 0) return Promise.resolve(true);
    return new Promise((done) => this.#clips.push({ pcm, offset: 0, done }));
  }

  /** The next frame to send, zero-padded at a clip's end; undefined when there is nothing to say. */
  next(): Int16Array | undefined {
    const clip = this.#clips[0];
    if (!clip) return undefined;
    const frame = new Int16Array(FRAME_SAMPLES);
    frame.set(clip.pcm.subarray(clip.offset, clip.offset + FRAME_SAMPLES));
    clip.offset += FRAME_SAMPLES;
    if (clip.offset >= clip.pcm.length) {
      this.#clips.shift();
      clip.done(true);
    }
    return frame;
  }

  /** Stops at once (barge-in, hang-up): every waiting clip resolves false. */
  clear(): void {
    const clips = this.#clips;
    this.#clips = [];
    for (const clip of clips) clip.done(false);
  }
}
