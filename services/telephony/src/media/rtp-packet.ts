import { isRtp, RtpPacket } from 'rtp.js/packets';
import { dataViewToNodeBuffer, nodeBufferToDataView } from 'rtp.js/utils';

/** Larger datagrams are not RTP we asked for (G.711 at 20 ms is 172 bytes). */
export const MAX_RTP_DATAGRAM = 1500;
/** 120 ms of G.711, the longest packet time a trunk plausibly uses. */
const MAX_AUDIO_PAYLOAD = 960;

/** The RTP header fields we use and the payload, both ways (no CSRCs or extensions). */
export interface RtpFields {
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
  payload: Uint8Array;
}

/**
 * Reads one datagram as RTP, or answers undefined for anything that is not a well-formed RTP
 * packet of an expected payload type and size: the socket is open to the internet.
 */
export function parseRtp(datagram: Buffer, acceptedPayloadTypes: ReadonlySet<number>): RtpFields | undefined {
  if (datagram.length < 12 || datagram.length > MAX_RTP_DATAGRAM) return undefined;
  const view = nodeBufferToDataView(datagram);
  if (!isRtp(view)) return undefined;
  let packet: RtpPacket;
  try {
    packet = new RtpPacket(view);
  } catch {
    return undefined;
  }
  const payloadType = packet.getPayloadType();
  if (!acceptedPayloadTypes.has(payloadType)) return undefined;
  const payloadView = packet.getPayload();
  if (payloadView.byteLength === 0 || payloadView.byteLength > MAX_AUDIO_PAYLOAD) return undefined;
  return {
    payloadType,
    sequenceNumber: packet.getSequenceNumber(),
    timestamp: packet.getTimestamp(),
    ssrc: packet.getSsrc(),
    marker: packet.getMarker(),
    // A copy: the datagram's buffer may be reused, and the jitter buffer keeps payloads a while.
    payload: new Uint8Array(
      payloadView.buffer.slice(payloadView.byteOffset, payloadView.byteOffset + payloadView.byteLength),
    ),
  };
}

export function serializeRtp(p: RtpFields): Buffer {
  const packet = new RtpPacket();
  packet.setPayloadType(p.payloadType);
  packet.setSequenceNumber(p.sequenceNumber & 0xffff);
  packet.setTimestamp(p.timestamp >>> 0);
  packet.setSsrc(p.ssrc >>> 0);
  packet.setMarker(p.marker);
  packet.setPayload(new DataView(p.payload.buffer, p.payload.byteOffset, p.payload.byteLength));
  return dataViewToNodeBuffer(packet.getView());
}

/** Signed distance from b to a in 16-bit sequence space (positive when a is after b). */
export function seqDiff(a: number, b: number): number {
  return ((((a - b) & 0xffff) + 0x8000) & 0xffff) - 0x8000;
}
