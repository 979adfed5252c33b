import { randomUUID } from 'node:crypto';
import type { BoardCall } from '../../../gateway/dashboard/src/board-call';

/** The statuses each streamed call goes through, in order (the "each call seen four times"). */
export const BOARD_STATUSES = ['INITIALIZING', 'RINGING', 'IN_PROGRESS', 'COMPLETED'] as const;

/** A `callStatusChanged` payload as the gateway sends it: the board's row, with one of the statuses above. */
export interface BoardEvent extends BoardCall {
  status: (typeof BOARD_STATUSES)[number];
}

interface InFlight {
  id: string;
  step: number;
  createdAt: string;
  phone: string;
}

/**
 * A synthetic stream of call status events, four per call, with `concurrent` calls in flight at
 * once as on a busy account: once that many have started, each new call comes with three status
 * changes of the calls already in flight (oldest first), so the stream keeps four events per call.
 * `createdAt` grows with each call: the newest call started is the board's first row.
 */
export class BoardCalls {
  private readonly inFlight: InFlight[] = [];
  private started = 0;
  /** Events made so far. */
  sent = 0;
  /** The last call started. */
  newest: string | undefined;

  constructor(
    private readonly concurrent: number,
    private readonly epoch = Date.now(),
  ) {}

  next(): BoardEvent {
    const starts = this.inFlight.length < this.concurrent || this.sent % BOARD_STATUSES.length === 0;
    if (starts || this.inFlight.length === 0) {
      const n = this.started++;
      this.newest = randomUUID();
      this.inFlight.push({
        id: this.newest,
        step: 0,
        createdAt: new Date(this.epoch + n).toISOString(),
        phone: `+1415555${String(n % 10_000).padStart(4, '0')}`,
      });
      return this.advance(this.inFlight.length - 1);
    }
    return this.advance(0);
  }

  /** Every call in flight taken to its final status: the events that ends them, oldest first. */
  drain(): BoardEvent[] {
    const events: BoardEvent[] = [];
    while (this.inFlight.length > 0) events.push(this.advance(0));
    return events;
  }

  /** The next status of the call at `index`; it moves to the back of the line, or leaves it when done. */
  private advance(index: number): BoardEvent {
    const [call] = this.inFlight.splice(index, 1);
    const status = BOARD_STATUSES[call!.step]!;
    call!.step += 1;
    if (call!.step < BOARD_STATUSES.length) this.inFlight.push(call!);
    this.sent += 1;
    const final = status === 'COMPLETED';
    return {
      id: call!.id,
      status,
      phoneNumber: call!.phone,
      agentId: '00000000-0000-4000-8000-000000000001',
      agentName: 'Riley',
      campaignId: null,
      createdAt: call!.createdAt,
      durationSeconds: final ? 42 : 0,
      totalCost: final ? 0.0123 : 0,
      costCurrency: 'USD',
    };
  }
}
