import { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE } from '../codec';

// Measurements of one 20 ms frame shared by the detectors. Hand-written: each is a few lines of
// arithmetic over 160 samples, cheaper and easier to reason about than a DSP dependency.

export { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE };

/** What a frame of digital zeros measures: the floor of every level here. */
export const SILENT_DB = -100;

/** The detectors take the RTP session's frames: exactly 20 ms. Anything else is a caller's bug. */
export function checkFrame(frame: Int16Array): void {
  if (frame.length !== FRAME_SAMPLES) {
    throw new RangeError(`expected a frame of ${FRAME_SAMPLES} samples, got ${frame.length}`);
  }
}

/** Sum of squares of the samples. */
export function frameEnergy(frame: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
  return sum;
}

/** Mean power in dB relative to full scale (a full-scale square wave is 0 dBFS, a sine -3). */
export function energyDb(energy: number, samples: number): number {
  const power = energy / samples / (32768 * 32768);
  return power > 0 ? Math.max(SILENT_DB, 10 * Math.log10(power)) : SILENT_DB;
}

const ORDER = 4;
const phi = new Float64Array((ORDER + 1) * (ORDER + 1));
const chol = new Float64Array(ORDER * ORDER);
const tmp = new Float64Array(ORDER);

/**
 * How well a 4th-order linear predictor fits the frame, in dB (signal energy over residual
 * energy), by the covariance method. One or two steady sinusoids (a beep, a dial tone) are
 * predicted almost exactly (40-90 dB clean, ~30 dB through G.711 and line noise); speech stays
 * mostly under 20 dB. The autocorrelation method would cap tones near 20 dB (window edges), so
 * the covariance matrix is built from its first row with the shift recursion, then solved by
 * Cholesky: about 800 multiply-adds per frame.
 */
export function predictionGainDb(frame: Int16Array, shape?: Float64Array): number {
  const n = frame.length;
  const p = ORDER;
  const size = p + 1;
  for (let k = 0; k <= p; k++) {
    let s = 0;
    for (let i = p; i < n; i++) s += frame[i]! * frame[i - k]!;
    phi[k] = s;
    phi[k * size] = s;
  }
  // phi(i+1, k+1) = phi(i, k) + x[p-1-i] x[p-1-k] - x[n-1-i] x[n-1-k]
  for (let i = 0; i < p; i++) {
    for (let k = i; k < p; k++) {
      const v =
        phi[i * size + k]! + frame[p - 1 - i]! * frame[p - 1 - k]! - frame[n - 1 - i]! * frame[n - 1 - k]!;
      phi[(i + 1) * size + k + 1] = v;
      phi[(k + 1) * size + i + 1] = v;
    }
  }
  const e0 = phi[0]!;
  if (shape) for (let k = 1; k <= p; k++) shape[k - 1] = e0 > 0 ? phi[k]! / e0 : 0;
  if (e0 <= 0) return 0;
  // Cholesky of the p x p block phi(1..p, 1..p), lightly regularised, then forward substitution:
  // the residual energy is e0 - |L^-1 c|^2 with c = phi(1..p, 0).
  const ridge = e0 * 1e-9;
  let explained = 0;
  for (let i = 0; i < p; i++) {
    for (let k = 0; k <= i; k++) {
      let s = phi[(i + 1) * size + k + 1]! + (i === k ? ridge : 0);
      for (let j = 0; j < k; j++) s -= chol[i * p + j]! * chol[k * p + j]!;
      if (i === k) {
        if (s <= 0) return 90; // singular: the frame is (numerically) perfectly predictable
        chol[i * p + i] = Math.sqrt(s);
      } else {
        chol[i * p + k] = s / chol[k * p + k]!;
      }
    }
    let t = phi[(i + 1) * size]!;
    for (let j = 0; j < i; j++) t -= chol[i * p + j]! * tmp[j]!;
    tmp[i] = t / chol[i * p + i]!;
    explained += tmp[i]! * tmp[i]!;
  }
  const residual = Math.max(e0 - explained, e0 * 1e-9);
  return 10 * Math.log10(e0 / residual);
}

/**
 * Power of one frequency in the frame by the Goertzel recurrence (any frequency, not only DFT
 * bins), scaled like |X(f)|^2 of the DFT.
 */
export function goertzelPower(frame: Int16Array, coefficient: number): number {
  const [s1, s2] = goertzel(frame, coefficient);
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

const states: [number, number] = [0, 0];

/** The Goertzel recurrence's last two states (s[N-1], s[N-2]), in a scratch array read at once. */
export function goertzel(frame: Int16Array, coefficient: number): readonly [number, number] {
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < frame.length; i++) {
    const s = frame[i]! + coefficient * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  states[0] = s1;
  states[1] = s2;
  return states;
}

export function goertzelCoefficient(frequencyHz: number): number {
  return 2 * Math.cos((2 * Math.PI * frequencyHz) / SAMPLE_RATE);
}
