import {
  CompoundPacket,
  isRtcp,
  ReceiverReportPacket,
  ReceptionReport,
  type RtcpPacket,
  SdesChunk,
  type SdesItemType,
  SdesPacket,
  SenderReportPacket,
} from 'rtp.js/packets';
import { dataViewToNodeBuffer, nodeBufferToDataView } from 'rtp.js/utils';
import type { ReceptionSnapshot } from './receiver-stats';

const MAX_RTCP_DATAGRAM = 1500;
const SDES_CNAME = 1 as SdesItemType;
const NTP_EPOCH_OFFSET_S = 2_208_988_800;

export interface ReportBlock extends ReceptionSnapshot {
  /** Middle 32 bits of the NTP time of the last sender report received, 0 when none. */
  lastSr: number;
  /** Since that report, in 1/65536 s. */
  delaySinceLastSr: number;
}

export interface SenderInfo {
  ntpSeconds: number;
  ntpFraction: number;
  rtpTimestamp: number;
  packetCount: number;
  octetCount: number;
}

/** One report from the far end, as read from its RTCP. */
export interface RtcpReport {
  type: 'sr' | 'rr';
  ssrc: number;
  sender?: SenderInfo;
  reports: ReportBlock[];
}

export function ntpNow(nowMs = Date.now()): { seconds: number; fraction: number } {
  const seconds = Math.floor(nowMs / 1000) + NTP_EPOCH_OFFSET_S;
  const fraction = Math.floor(((nowMs % 1000) / 1000) * 2 ** 32);
  return { seconds: seconds >>> 0, fraction: fraction >>> 0 };
}

/** The compact NTP form RTCP uses for LSR and round trips. */
export function ntpMiddle32(seconds: number, fraction: number): number {
  return (((seconds & 0xffff) << 16) | (fraction >>> 16)) >>> 0;
}

/** A compound packet: a sender report (or a receiver report when we sent nothing) and our CNAME. */
export function buildRtcpReport(options: {
  ssrc: number;
  cname: string;
  sender?: SenderInfo;
  block?: ReportBlock;
}): Buffer {
  const compound = new CompoundPacket();
  const block = options.block && toReceptionReport(options.block);
  if (options.sender) {
    const sr = new SenderReportPacket();
    sr.setSsrc(options.ssrc);
    sr.setNtpSeconds(options.sender.ntpSeconds);
    sr.setNtpFraction(options.sender.ntpFraction);
    sr.setRtpTimestamp(options.sender.rtpTimestamp >>> 0);
    sr.setPacketCount(options.sender.packetCount >>> 0);
    sr.setOctetCount(options.sender.octetCount >>> 0);
    if (block) sr.addReport(block);
    compound.addPacket(sr);
  } else {
    const rr = new ReceiverReportPacket();
    rr.setSsrc(options.ssrc);
    if (block) rr.addReport(block);
    compound.addPacket(rr);
  }
  const sdes = new SdesPacket();
  const chunk = new SdesChunk();
  chunk.setSsrc(options.ssrc);
  chunk.addItem(SDES_CNAME, options.cname);
  sdes.addChunk(chunk);
  compound.addPacket(sdes);
  return dataViewToNodeBuffer(compound.getView());
}

/** The SR and RR packets in one datagram; anything malformed yields an empty list. */
export function parseRtcp(datagram: Buffer): RtcpReport[] {
  if (datagram.length < 8 || datagram.length > MAX_RTCP_DATAGRAM) return [];
  const view = nodeBufferToDataView(datagram);
  if (!isRtcp(view)) return [];
  let packets: RtcpPacket[];
  try {
    packets = new CompoundPacket(view).getPackets();
  } catch {
    return [];
  }
  const out: RtcpReport[] = [];
  for (const p of packets) {
    if (p instanceof SenderReportPacket) {
      out.push({
        type: 'sr',
        ssrc: p.getSsrc(),
        sender: {
          ntpSeconds: p.getNtpSeconds(),
          ntpFraction: p.getNtpFraction(),
          rtpTimestamp: p.getRtpTimestamp(),
          packetCount: p.getPacketCount(),
          octetCount: p.getOctetCount(),
        },
        reports: p.getReports().map(fromReceptionReport),
      });
    } else if (p instanceof ReceiverReportPacket) {
      out.push({ type: 'rr', ssrc: p.getSsrc(), reports: p.getReports().map(fromReceptionReport) });
    }
  }
  return out;
}

function toReceptionReport(b: ReportBlock): ReceptionReport {
  const r = new ReceptionReport();
  r.setSsrc(b.ssrc);
  r.setFractionLost(b.fractionLost);
  r.setTotalLost(b.totalLost);
  r.setHighestSeqNumber(b.highestSeq);
  r.setJitter(b.jitter);
  r.setLastSRTimestamp(b.lastSr);
  r.setDelaySinceLastSR(b.delaySinceLastSr);
  return r;
}

function fromReceptionReport(r: ReceptionReport): ReportBlock {
  return {
    ssrc: r.getSsrc(),
    fractionLost: r.getFractionLost(),
    totalLost: r.getTotalLost(),
    highestSeq: r.getHighestSeqNumber(),
    jitter: r.getJitter(),
    lastSr: r.getLastSRTimestamp(),
    delaySinceLastSr: r.getDelaySinceLastSR(),
  };
}
