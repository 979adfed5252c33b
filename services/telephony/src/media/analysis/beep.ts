import {
  checkFrame,
  energyDb,
  FRAME_MS,
  FRAME_SAMPLES,
  frameEnergy,
  goertzel,
  goertzelCoefficient,
  goertzelPower,
  SAMPLE_RATE,
} from './frame-features';

// The answering machine's beep: one steady tone somewhere between ~400 Hz and ~2 kHz, reported
// when it ends (that is when the message can start).

export interface BeepOptions {
  /** The band searched; default 400 to 2000 Hz. */
  minHz?: number;
  maxHz?: number;
  /** A tone must hold one pitch at least this long; default 120. */
  minToneMs?: number;
  /** Share of a frame's energy the tone must hold (1 = a pure tone); default 0.8. */
  minPurity?: number;
  /** Quieter frames are not a beep; default -45 dBFS. */
  minLevelDb?: number;
}

export interface BeepEvent {
  type: 'beep';
  /** Start of the first and end of the last tone frame, on the caller's clock. */
  startMs: number;
  endMs: number;
  /** The pitch held longest, to the Hz (within a few Hz of the truth). */
  frequencyHz: number;
}

/** Bank spacing: the frame's own DFT resolution (8000 / 160). */
const BIN_HZ = 50;
/** A tone drifting more than this between frames is moving, like a voice's harmonic. */
const MAX_DRIFT = 0.02;
const MIN_DRIFT_HZ = 12;
/** One frame (a lost packet) may break a tone without ending it. */
const MAX_GAP_FRAMES = 1;

interface Segment {
  frequencyHz: number;
  frames: number;
}

/**
 * Hand-written Goertzel bank (a few lines; no npm package does this better for 160 samples):
 * one filter per 50 Hz across the band finds the peak, interpolation between bins refines it, and a
 * last Goertzel at the refined frequency measures how much of the frame's energy the tone holds.
 * Speech fails that purity (harmonics, formants) or, where one harmonic dominates, the steadiness
 * test (pitch moves more than 2% between frames).
 */
export class BeepDetector {
  readonly #coefficients: Float64Array;
  readonly #cos: Float64Array;
  readonly #sin: Float64Array;
  /** The lowest bin's frequency. */
  readonly #minHz: number;
  readonly #band: [number, number];
  readonly #minToneFrames: number;
  readonly #minPurity: number;
  readonly #minLevelDb: number;
  readonly #powers: Float64Array;
  /** The DFT value of each bin (real, imaginary), for the peak's interpolation. */
  readonly #re: Float64Array;
  readonly #im: Float64Array;
  /** The tone being heard: its start, last tone frame, current and longest steady pitch. */
  #run: { startMs: number; endMs: number; current: Segment; longest: Segment; gap: number } | undefined;

  constructor(options: BeepOptions = {}) {
    const minHz = options.minHz ?? 400;
    const maxHz = options.maxHz ?? 2000;
    if (!(minHz > 0 && maxHz > minHz && maxHz < 4000)) {
      throw new RangeError(`beep band ${minHz}-${maxHz} Hz is not inside 0-4000 Hz`);
    }
    this.#band = [minHz, maxHz];
    // Whole DFT bins (so neighbours' complex values can be compared), one more on each side of
    // the band so that a tone near its edge is interpolated too.
    this.#minHz = Math.max(BIN_HZ, (Math.floor(minHz / BIN_HZ) - 1) * BIN_HZ);
    const topHz = Math.min((Math.ceil(maxHz / BIN_HZ) + 1) * BIN_HZ, SAMPLE_RATE / 2 - BIN_HZ);
    const bins = (topHz - this.#minHz) / BIN_HZ + 1;
    const omega = (k: number) => (2 * Math.PI * (this.#minHz + k * BIN_HZ)) / SAMPLE_RATE;
    this.#coefficients = Float64Array.from({ length: bins }, (_, k) => 2 * Math.cos(omega(k)));
    this.#cos = Float64Array.from({ length: bins }, (_, k) => Math.cos(omega(k)));
    this.#sin = Float64Array.from({ length: bins }, (_, k) => Math.sin(omega(k)));
    this.#powers = new Float64Array(bins);
    this.#re = new Float64Array(bins);
    this.#im = new Float64Array(bins);
    this.#minToneFrames = Math.max(1, Math.ceil((options.minToneMs ?? 120) / FRAME_MS));
    this.#minPurity = options.minPurity ?? 0.8;
    this.#minLevelDb = options.minLevelDb ?? -45;
  }

  /** True while a tone (a beep or not yet) is sounding. */
  get sounding(): boolean {
    return this.#run !== undefined;
  }

  push(frame: Int16Array, atMs: number): BeepEvent | undefined {
    const tone = this.#tone(frame);
    const run = this.#run;
    if (tone === undefined) {
      if (!run) return undefined;
      if (run.gap++ < MAX_GAP_FRAMES) return undefined;
      this.#run = undefined;
      if (run.longest.frames < this.#minToneFrames) return undefined;
      const frequencyHz = Math.round(run.longest.frequencyHz);
      return { type: 'beep', startMs: run.startMs, endMs: run.endMs, frequencyHz };
    }
    if (!run) {
      const current = { frequencyHz: tone, frames: 1 };
      this.#run = { startMs: atMs, endMs: atMs + FRAME_MS, current, longest: current, gap: 0 };
      return undefined;
    }
    run.endMs = atMs + FRAME_MS;
    run.gap = 0;
    const drift = Math.abs(tone - run.current.frequencyHz);
    if (drift <= Math.max(MIN_DRIFT_HZ, MAX_DRIFT * run.current.frequencyHz)) {
      // A running mean: the pitch estimate of one frame wobbles by a few Hz.
      run.current.frequencyHz += (tone - run.current.frequencyHz) / (run.current.frames + 1);
      run.current.frames++;
    } else {
      // A new pitch (a two-tone beep): still one tone for reporting, but steadiness starts over.
      run.current = { frequencyHz: tone, frames: 1 };
    }
    if (run.current.frames > run.longest.frames) run.longest = run.current;
    return undefined;
  }

  reset(): void {
    this.#run = undefined;
  }

  /** The frequency of the pure tone this frame holds, or undefined. */
  #tone(frame: Int16Array): number | undefined {
    checkFrame(frame);
    const energy = frameEnergy(frame);
    if (energyDb(energy, FRAME_SAMPLES) < this.#minLevelDb) return undefined;
    let peak = 0;
    for (let k = 0; k < this.#coefficients.length; k++) {
      const [s1, s2] = goertzel(frame, this.#coefficients[k]!);
      // y = s1 - s2 e^{-jw} is X(k) e^{jw(N-1)}; for a whole bin e^{jwN} = 1, so X(k) = y e^{jw}.
      const yr = s1 - s2 * this.#cos[k]!;
      const yi = s2 * this.#sin[k]!;
      this.#re[k] = yr * this.#cos[k]! - yi * this.#sin[k]!;
      this.#im[k] = yr * this.#sin[k]! + yi * this.#cos[k]!;
      this.#powers[k] = yr * yr + yi * yi;
      if (this.#powers[k]! > this.#powers[peak]!) peak = k;
    }
    const frequencyHz = this.#minHz + (peak + this.#offset(peak)) * BIN_HZ;
    const power = goertzelPower(frame, goertzelCoefficient(frequencyHz));
    // 2|X(f)|^2 / (N * sum x^2) is 1 for a pure sinusoid at f filling the frame.
    const purity = (2 * power) / (FRAME_SAMPLES * energy);
    const [lo, hi] = this.#band;
    return purity >= this.#minPurity && frequencyHz >= lo && frequencyHz <= hi ? frequencyHz : undefined;
  }

  /**
   * Where the peak really is, in bins from the peak bin (-0.5 to 0.5): Jacobsen's estimator on the
   * complex DFT of the bin and its neighbours, within a few Hz for a tone anywhere between bins.
   */
  #offset(peak: number): number {
    if (peak === 0 || peak === this.#powers.length - 1) return 0;
    const [ar, ai] = [this.#re[peak - 1]!, this.#im[peak - 1]!];
    const [br, bi] = [this.#re[peak]!, this.#im[peak]!];
    const [cr, ci] = [this.#re[peak + 1]!, this.#im[peak + 1]!];
    // Re((a - c) / (2b - a - c))
    const nr = ar - cr;
    const ni = ai - ci;
    const dr = 2 * br - ar - cr;
    const di = 2 * bi - ai - ci;
    const d2 = dr * dr + di * di;
    return d2 === 0 ? 0 : Math.max(-0.5, Math.min(0.5, (nr * dr + ni * di) / d2));
  }
}
