import type { Sql } from '@voice/shared';
import { callRepository } from './call-repository';
import type { CallRow } from './call-rows';
import { GroupWriter, type GroupWriterOptions } from './group-writer';

/**
 * Stores placed calls together: those of one event-loop turn, and those that arrive while a
 * statement is in flight (GroupWriter: under load each statement, round trip and commit stores
 * several calls), with at most one statement in flight per account (lanes). Two placements of
 * the same id in one batch (a re-sent campaign placement) store it once: the later one is told
 * it was not placed, as if it had lost the race to a committed one.
 */
export class PlacementWriter {
  private readonly writer: GroupWriter<CallRow>;

  constructor(sql: Sql, options: GroupWriterOptions<CallRow> = {}) {
    // A lane per account: one account's burst groups behind its own statement in flight, and
    // another account's call is stored without waiting for that statement (fairness).
    this.writer = new GroupWriter((rows) => callRepository.placeAll(sql, rows), {
      concurrency: 4,
      laneOf: (row) => row.account_id,
      ...options,
    });
  }

  /** Stores the call with its first transition; false when its id was taken already. */
  place(row: CallRow): Promise<boolean> {
    return this.writer.write(row);
  }
}
