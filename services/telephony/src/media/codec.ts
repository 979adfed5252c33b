import * as alawmulawNs from 'alawmulaw';

/** The two G.711 codecs every SIP trunk speaks, with their static RTP payload types (RFC 3551). */
export type G711Codec = 'PCMU' | 'PCMA';
export const STATIC_PAYLOAD_TYPES: Readonly<Record<G711Codec, number>> = { PCMU: 0, PCMA: 8 };

export const SAMPLE_RATE = 8000;
/** 20 ms at 8 kHz: one packet of G.711 audio, one byte per sample. */
export const FRAME_SAMPLES = 160;
export const FRAME_MS = 20;

// alawmulaw ships CommonJS for Node and ES modules for bundlers: Node hands us the namespace as `default`.
const g711 = (alawmulawNs as unknown as { default?: typeof alawmulawNs }).default ?? alawmulawNs;

export function encodeG711(codec: G711Codec, pcm: Int16Array): Uint8Array {
  return codec === 'PCMU' ? g711.mulaw.encode(pcm) : g711.alaw.encode(pcm);
}

export function decodeG711(codec: G711Codec, payload: Uint8Array): Int16Array {
  return codec === 'PCMU' ? g711.mulaw.decode(payload) : g711.alaw.decode(payload);
}

/** One 20 ms frame of digital silence, already encoded (0xFF in mu-law, 0xD5 in A-law). */
export function silencePayload(codec: G711Codec): Uint8Array {
  return encodeG711(codec, new Int16Array(FRAME_SAMPLES));
}
