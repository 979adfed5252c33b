import sdpTransform from 'sdp-transform';
import { type G711Codec, STATIC_PAYLOAD_TYPES } from './codec';

export const DEFAULT_TELEPHONE_EVENT_PT = 101;
/** A real answer is a few hundred bytes; anything this large is refused before parsing. */
const MAX_SDP_BYTES = 16_384;

export interface OfferOptions {
  /** The address our RTP socket listens on. */
  address: string;
  port: number;
  /** What the far end should send to, when we sit behind NAT (SIP_PUBLIC_ADDRESS). */
  publicAddress?: string;
  /** In order of preference; PCMU then PCMA by default. */
  codecs?: readonly G711Codec[];
  sessionId?: number;
  sessionVersion?: number;
}

/** What the far end's answer settled: where to send, in which codec, and how it signals DTMF. */
export interface NegotiatedMedia {
  codec: G711Codec;
  payloadType: number;
  remoteAddress: string;
  remotePort: number;
  /** From a=rtcp when present, else the RTP port + 1. */
  remoteRtcpPort: number;
  /** Its telephone-event payload type, absent when it did not accept RFC 4733 events. */
  telephoneEventPayloadType?: number;
  ptimeMs?: number;
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
}

/** The far end's SDP cannot carry audio with us; the call should end as failed. */
export class SdpAnswerError extends Error {
  override readonly name = 'SdpAnswerError';
}

export function buildOffer(options: OfferOptions): string {
  const codecs = options.codecs?.length ? options.codecs : (['PCMU', 'PCMA'] as const);
  const advertised = options.publicAddress ?? options.address;
  const ipVer = advertised.includes(':') ? 6 : 4;
  const te = DEFAULT_TELEPHONE_EVENT_PT;
  const payloads = [...codecs.map((c) => STATIC_PAYLOAD_TYPES[c]), te];
  const sessionId = options.sessionId ?? Math.floor(Math.random() * 2 ** 31);
  return sdpTransform.write({
    version: 0,
    origin: {
      username: '-',
      sessionId,
      sessionVersion: options.sessionVersion ?? sessionId,
      netType: 'IN',
      ipVer,
      address: advertised,
    },
    name: '-',
    connection: { version: ipVer, ip: advertised },
    timing: { start: 0, stop: 0 },
    media: [
      {
        type: 'audio',
        port: options.port,
        protocol: 'RTP/AVP',
        payloads: payloads.join(' '),
        rtp: [
          ...codecs.map((c) => ({ payload: STATIC_PAYLOAD_TYPES[c], codec: c, rate: 8000 })),
          { payload: te, codec: 'telephone-event', rate: 8000 },
        ],
        fmtp: [{ payload: te, config: '0-16' }],
        ptime: 20,
        direction: 'sendrecv',
      },
    ],
  });
}

type MediaDescription = sdpTransform.SessionDescription['media'][number];

/**
 * Reads the far end's answer (or early-media SDP). `offered` is what we offered, in preference
 * order; the answer's first payload type we know wins, as RFC 3264 lets the answerer order them.
 */
export function parseAnswer(sdp: string, offered: readonly G711Codec[] = ['PCMU', 'PCMA']): NegotiatedMedia {
  if (Buffer.byteLength(sdp) > MAX_SDP_BYTES) throw new SdpAnswerError('SDP answer is too large');
  let session: sdpTransform.SessionDescription;
  try {
    session = sdpTransform.parse(sdp);
  } catch (cause) {
    throw new SdpAnswerError('SDP answer cannot be parsed', { cause });
  }
  const audio = (session.media ?? []).find((m) => m.type === 'audio' && /^RTP\/AVPF?$/.test(m.protocol));
  if (!audio) throw new SdpAnswerError('SDP answer has no plain RTP audio stream');
  if (!audio.port) throw new SdpAnswerError('SDP answer rejected the audio stream (port 0)');
  const address = audio.connection?.ip ?? session.connection?.ip;
  if (!address) throw new SdpAnswerError('SDP answer has no connection address (c=)');
  const payloadTypes = String(audio.payloads ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  const chosen = chooseCodec(audio, payloadTypes, offered);
  if (!chosen) throw new SdpAnswerError('SDP answer has no codec in common with our offer (PCMU, PCMA)');
  const te = (audio.rtp ?? []).find(
    (r) => r.codec.toLowerCase() === 'telephone-event' && r.rate === 8000 && payloadTypes.includes(r.payload),
  );
  return {
    ...chosen,
    remoteAddress: address.split('/')[0]!,
    remotePort: audio.port,
    remoteRtcpPort: audio.rtcp?.port ?? audio.port + 1,
    ...(te ? { telephoneEventPayloadType: te.payload } : {}),
    ...(audio.ptime ? { ptimeMs: audio.ptime } : {}),
    direction: audio.direction ?? session.direction ?? 'sendrecv',
  };
}

function chooseCodec(
  audio: MediaDescription,
  payloadTypes: number[],
  offered: readonly G711Codec[],
): { codec: G711Codec; payloadType: number } | undefined {
  for (const pt of payloadTypes) {
    const mapped = (audio.rtp ?? []).find((r) => r.payload === pt);
    const name = mapped
      ? mapped.codec.toUpperCase()
      : (Object.keys(STATIC_PAYLOAD_TYPES) as G711Codec[]).find((c) => STATIC_PAYLOAD_TYPES[c] === pt);
    if (mapped && mapped.rate !== 8000) continue;
    const codec = offered.find((c) => c === name);
    if (codec) return { codec, payloadType: pt };
  }
  return undefined;
}
