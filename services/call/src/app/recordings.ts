import { AppError, type Sql } from '@voice/shared';
import type { TelephonyProvider } from '../carrier/index';
import { isFinal } from '../db/call-rows';

interface RecordingRow {
  id: string;
  status: string;
  duration_seconds: number;
}

/** Recordings are synthesised by the carrier on request; nothing large is stored. */
export class RecordingsApp {
  constructor(
    private readonly sql: Sql,
    private readonly provider: TelephonyProvider,
  ) {}

  async info(callId: string) {
    const row = await this.row(callId);
    return {
      call_id: row.id,
      status: row.status as 'completed',
      duration_seconds: row.duration_seconds,
      has_recording: isFinal(row.status as 'completed') && row.duration_seconds > 0,
    };
  }

  /** Bytes [offset, offset+length) of the WAV file, streamed through without holding the file. */
  async chunk(callId: string, offset: number, length: number) {
    const row = await this.row(callId);
    const recording = this.provider.recording({ callId, durationSeconds: row.duration_seconds });
    const parts: Buffer[] = [];
    let position = 0;
    let collected = 0;
    for await (const piece of recording.stream as AsyncIterable<Buffer>) {
      const start = Math.max(0, offset - position);
      const end = Math.min(piece.length, offset + length - position);
      if (end > start) {
        parts.push(piece.subarray(start, end));
        collected += end - start;
      }
      position += piece.length;
      if (collected >= length || position >= offset + length) break;
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
    >`SELECT id, status, duration_seconds FROM call.calls WHERE id = ${callId}`;
    if (!row) throw new AppError('CALL_NOT_FOUND');
    return row;
  }
}
