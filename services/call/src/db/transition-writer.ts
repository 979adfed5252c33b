import type { EventOf, Sql } from '@voice/shared';
import { callRepository, type Move } from './call-repository';
import type { CallRow } from './call-rows';
import { GroupWriter, type GroupWriterOptions } from './group-writer';

/**
 * Moves calls forward together while a statement is in flight (GroupWriter). Calls dialed in one
 * batch often change at the same moment (numbers that fail at once, calls ending together): one
 * statement, commit and relay wake-up then serves them all instead of one each.
 */
export class TransitionWriter {
  private readonly writer: GroupWriter<Move & { id: string }>;

  constructor(sql: Sql, options: GroupWriterOptions<Move & { id: string }> = {}) {
    this.writer = new GroupWriter((moves) => callRepository.advanceAll(sql, moves), options);
  }

  /**
   * Moves the call from `from` to `to` with its history row and, if given, its durable event (call-events.ts); false
   * if the stored call is no longer at `from.sequence` (or another move of it went first).
   */
  advance(from: CallRow, to: CallRow, at: Date, ended: EventOf<unknown> | undefined): Promise<boolean> {
    return this.writer.write({ id: from.id, from, to, at, ended });
  }
}
