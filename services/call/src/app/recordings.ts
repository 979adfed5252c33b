import { AppError, type CallStatus, type Sql } from '@voice/shared';
import type { TelephonyProvider } from '../carrier/index';
import { isFinal } from '../domain/lifecycle';

interface RecordingRow {
  id: string;
  status: CallStatus;
  duration_seconds: number;
  /** Null for the simulated carrier (synthesised on request); else whether the network kept one. */
  recorded: boolean | null;
}

/**
 * The simulated carrier's recordings are synthesised on request; nothing large is stored. A SIP
 * call's recording is the real audio, written by the telephony instance that carried it.
 */
export class RecordingsApp {
  constructor(
    private readonly sql: Sql,
    private readonly provider: TelephonyProvider,
  ) {}

  async info(callId: string) {
    const row = await this.row(callId);
    return {
      call_id: row.id,
      status: row.status,
      duration_seconds: row.duration_seconds,
      has_recording: isFinal(row.status) && (row.recorded ?? row.duration_seconds > 0),
    };
  }

  /** Bytes [offset, offset+length) of the WAV file, synthesised from `offset` on (never from the start). */
  async chunk(callId: string, offset: number, length: number) {
    const row = await this.row(callId);
    if (row.recorded !== null) {
      throw new AppError('NOT_FOUND', 'The recording of a SIP call is kept in the recording store');
    }
    const recording = this.provider.recording({ callId, durationSeconds: row.duration_seconds, offset });
    const parts: Buffer[] = [];
    let collected = 0;
    for await (const piece of recording.stream as AsyncIterable<Buffer>) {
      const take = piece.subarray(0, length - collected);
      parts.push(take);
      collected += take.length;
      if (collected >= length) break;
    }
    return {
      data: Buffer.concat(parts).toString('base64'),
      total: recording.contentLength,
      content_type: 'audio/wav' as const,
    };
  }

  private async row(callId: string): Promise<RecordingRow> {
    const [row] = await this.sql<
      RecordingRow[]
    >`SELECT id, status, duration_seconds, recorded FROM call.calls WHERE id = ${callId}`;
    if (!row) throw new AppError('CALL_NOT_FOUND');
    return row;
  }
}
