import { performance } from 'node:perf_hooks';
import type { ReceiverStats } from './receiver-stats';
import { buildRtcpReport, ntpMiddle32, ntpNow, parseRtcp, type RtcpReport } from './rtcp';
import type { RtpSender } from './rtp-sender';

/**
 * Our side of RTCP: a sender report with a reception block every interval (randomised 0.5-1.5x,
 * RFC 3550 6.2, so calls started together do not report in step), and the far end's reports
 * read, remembered and turned into a round-trip time.
 */
export class RtcpReporter {
  #timer: NodeJS.Timeout | undefined;
  #lastSr: { middle32: number; at: number } | undefined;
  lastRemoteReport: RtcpReport | undefined;
  roundTripMs: number | undefined;
  reportsSent = 0;

  constructor(
    private readonly sender: RtpSender,
    private readonly receiver: ReceiverStats,
    private readonly cname: string,
    private readonly send: (datagram: Buffer) => void,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.#timer) return;
    const schedule = () => {
      this.#timer = setTimeout(
        () => {
          this.sendReport();
          schedule();
        },
        this.intervalMs * (0.5 + Math.random()),
      );
    };
    schedule();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  sendReport(): void {
    const ntp = ntpNow();
    const snapshot = this.receiver.snapshot();
    const block = snapshot && {
      ...snapshot,
      lastSr: this.#lastSr?.middle32 ?? 0,
      delaySinceLastSr: this.#lastSr ? Math.round(((performance.now() - this.#lastSr.at) / 1000) * 65536) : 0,
    };
    const sender =
      this.sender.packetsSent > 0
        ? {
            ntpSeconds: ntp.seconds,
            ntpFraction: ntp.fraction,
            rtpTimestamp: this.sender.timestamp,
            packetCount: this.sender.packetsSent,
            octetCount: this.sender.octetsSent,
          }
        : undefined;
    this.send(buildRtcpReport({ ssrc: this.sender.ssrc, cname: this.cname, sender, block }));
    this.reportsSent++;
  }

  /** Reads one datagram from the RTCP socket; answers the reports it held. */
  receive(datagram: Buffer): RtcpReport[] {
    const reports = parseRtcp(datagram);
    const now = ntpNow();
    for (const report of reports) {
      if (report.sender) {
        this.#lastSr = {
          middle32: ntpMiddle32(report.sender.ntpSeconds, report.sender.ntpFraction),
          at: performance.now(),
        };
      }
      const aboutUs = report.reports.find((b) => b.ssrc === this.sender.ssrc);
      if (aboutUs && aboutUs.lastSr !== 0) {
        // RFC 3550 6.4.1: now - LSR - DLSR, all in 1/65536 s.
        const rtt =
          (ntpMiddle32(now.seconds, now.fraction) - aboutUs.lastSr - aboutUs.delaySinceLastSr) >>> 0;
        if (rtt < 65536 * 10) this.roundTripMs = (rtt / 65536) * 1000;
      }
      this.lastRemoteReport = report;
    }
    return reports;
  }
}
