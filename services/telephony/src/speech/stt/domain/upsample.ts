/**
 * 8 kHz telephone audio for the 16 kHz en-us model: each sample twice (a zero-order hold).
 *
 * Deliberately not a clean resampler. The model was trained on wideband speech; after a proper
 * low-pass interpolation (sox `rate`, a windowed-sinc filter) the 4-8 kHz band is empty, its log
 * mel energies collapse, and recognition fell apart (7 of 21 test utterances right, against 20
 * of 21 with the hold). The hold leaves attenuated mirror images of the speech band above 4 kHz,
 * enough like real high-frequency energy for the model. Decoding at 8 kHz with a narrowed filter
 * bank (`-samprate 8000 -nfft 256 -upperf 3800`) was worse still (4 of 21).
 */
export function upsampleForModel(pcm: Int16Array): Int16Array {
  const out = new Int16Array(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) {
    const s = pcm[i]!;
    out[2 * i] = s;
    out[2 * i + 1] = s;
  }
  return out;
}
