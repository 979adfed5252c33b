import {
  checkFrame,
  energyDb,
  FRAME_SAMPLES,
  frameEnergy,
  predictionGainDb,
  SILENT_DB,
} from './frame-features';

// Is this 20 ms frame speech? Energy against an adaptive noise floor, with a tone guard. The one
// frame-level judgement behind the VAD, the word counter of AMD and the voicemail waiter.

/** Nothing quieter than this is speech, whatever the floor (digital silence, A-law idle). */
const MIN_SPEECH_DB = -50;
/** A frame this far above the floor starts speech ... */
const ONSET_MARGIN_DB = 10;
/** ... and one this far above it keeps speech going (hysteresis: word endings are soft). */
const HOLD_MARGIN_DB = 6;
/** The first frames only measure the line (calls do not open with speech): its floor is their quietest. */
const WARMUP_FRAMES = 5;
/** The floor assumed when the line was digitally silent so far. */
const INITIAL_FLOOR_DB = -50;
/** Below this a frame is digital silence (lost packets, a far end's own VAD): no news of the line noise. */
const DIGITAL_SILENCE_DB = -85;
/**
 * The tone guard. A steady, highly predictable frame is a tone, not a voice: a 4-pole model
 * predicts one or two sinusoids almost exactly (27-35 dB through G.711), speech mostly under 20 dB.
 * But vowels and nasals of synthetic voices reach 29 dB, so a tone must also be steady: its
 * spectral shape (normalised correlations at lags 1-4) and level barely move from the last frame.
 * One tone (a beep, a 425 Hz dial tone) is very steady; two (350+440 Hz) beat, so they are allowed
 * more drift but must be more predictable. Weaker tones that pass are caught by the steady floor.
 */
const TONES = [
  { minGainDb: 20, maxShapeDrift: 0.01, maxLevelDriftDb: 0.5 },
  { minGainDb: 24, maxShapeDrift: 0.04, maxLevelDriftDb: 1.6 },
] as const;
/** The floor follows quieter frames quickly (half the gap per frame) ... */
const FALL_RATE = 0.5;
/** ... drifts towards louder non-speech frames (~1 s time constant) ... */
const RISE_RATE = 0.02;
/** ... creeps up under speech (0.5 dB/s) so a step in the noise cannot hold speech forever ... */
const CREEP_DB = 0.01;
/** ... sinks slowly in digital silence, so one lost packet does not make the next noise frame speech ... */
const LEAK_DB = 0.5;
/** ... and jumps to a level that has stayed this steady for STEADY_FRAMES: a hum, a fan, a weak tone. */
const STEADY_RANGE_DB = 3;
const STEADY_FRAMES = 25;

export interface FrameClass {
  energyDb: number;
  /** The noise floor after this frame, dBFS (SILENT_DB before any sound was heard). */
  floorDb: number;
  voiced: boolean;
  tonal: boolean;
}

export class SpeechFrameClassifier {
  #floorDb: number | undefined;
  readonly #recent = new Float64Array(STEADY_FRAMES);
  #recentCount = 0;
  #heard = 0;
  /** The last frame's spectral shape and level, for the tone guard. */
  #shape = new Float64Array(4);
  #lastShape = new Float64Array(4);
  #lastDb = SILENT_DB;

  get floorDb(): number {
    return this.#floorDb ?? SILENT_DB;
  }

  /** `holding`: the caller is inside speech (a word, an utterance), so the lower margin applies. */
  classify(frame: Int16Array, holding: boolean): FrameClass {
    checkFrame(frame);
    this.#heard++;
    const db = energyDb(frameEnergy(frame), FRAME_SAMPLES);
    if (db < DIGITAL_SILENCE_DB) {
      this.#lastDb = SILENT_DB;
      this.#floorDb = Math.max(SILENT_DB, (this.#floorDb ?? SILENT_DB) - LEAK_DB);
      return { energyDb: db, floorDb: this.floorDb, voiced: false, tonal: false };
    }
    if (this.#heard <= WARMUP_FRAMES) {
      this.#floorDb = Math.min(this.#floorDb ?? db, db);
      return { energyDb: db, floorDb: this.floorDb, voiced: false, tonal: false };
    }
    // After digital silence only, the floor is a quiet line's; a noise that starts later raises it
    // within half a second (the steady rule).
    const floor = this.#floorDb ?? INITIAL_FLOOR_DB;
    const margin = holding ? HOLD_MARGIN_DB : ONSET_MARGIN_DB;
    const loud = db >= Math.max(floor + margin, MIN_SPEECH_DB);
    const tonal = this.#tonal(frame, db) && loud;
    const voiced = loud && !tonal;
    if (!tonal) this.#track(db, floor, voiced);
    return { energyDb: db, floorDb: this.floorDb, voiced, tonal };
  }

  reset(): void {
    this.#floorDb = undefined;
    this.#recentCount = 0;
    this.#heard = 0;
    this.#lastDb = SILENT_DB;
  }

  /** ~800 multiply-adds: a steady, highly predictable frame is a tone. */
  #tonal(frame: Int16Array, db: number): boolean {
    const gain = predictionGainDb(frame, this.#shape);
    let drift = 0;
    for (let k = 0; k < this.#shape.length; k++) {
      drift = Math.max(drift, Math.abs(this.#shape[k]! - this.#lastShape[k]!));
    }
    const levelDrift = Math.abs(db - this.#lastDb);
    [this.#shape, this.#lastShape] = [this.#lastShape, this.#shape];
    this.#lastDb = db;
    return TONES.some(
      (t) => gain >= t.minGainDb && drift <= t.maxShapeDrift && levelDrift <= t.maxLevelDriftDb,
    );
  }

  #track(db: number, floor: number, voiced: boolean): void {
    let next: number;
    if (db < floor) next = floor + (db - floor) * FALL_RATE;
    else if (voiced) next = floor + CREEP_DB;
    else next = floor + (db - floor) * RISE_RATE;
    this.#recent[this.#recentCount++ % STEADY_FRAMES] = db;
    if (this.#recentCount >= STEADY_FRAMES) {
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const v of this.#recent) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      if (hi - lo <= STEADY_RANGE_DB && lo > next) next = lo;
    }
    this.#floorDb = next;
  }
}
