import { AppError, type Sql } from '@voice/shared';
import { type Admission, admit } from '../domain/admission';

/**
 * Admission of calls to trunks, shared by every telephony instance: the trunk's row lock
 * serialises the decision, its active calls are rows of telephony.trunk_calls, and its pacing is
 * its `next_dial_at`. `instance` names this process, so what it held can be dropped when it stops.
 * A crashed instance's rows stay counted until the calls' owner (the dial path) releases them.
 */
export class TrunkAdmissions {
  constructor(
    private readonly sql: Sql,
    private readonly instance: string,
    private readonly onDecided: (admission: Admission) => void = () => {},
  ) {}

  /** Admits `callId` to the trunk now, or says why and until when it must wait. */
  async tryAdmit(accountId: string, trunkId: string, callId: string): Promise<Admission> {
    const admission = await this.sql.begin(async (tx) => {
      const [trunk] = await tx<
        { max_concurrent_calls: number | null; calls_per_second: number | null; next_dial_at: Date | null }[]
      >`
        SELECT max_concurrent_calls, calls_per_second, next_dial_at FROM telephony.trunks
        WHERE id = ${trunkId} AND account_id = ${accountId} FOR UPDATE`;
      if (!trunk) return undefined;
      const [load] = await tx<{ active: number; now: Date }[]>`
        SELECT count(*)::int AS active, now() AS now FROM telephony.trunk_calls WHERE trunk_id = ${trunkId}`;
      const decision = admit(
        trunk,
        { active: load!.active, nextDialAt: trunk.next_dial_at?.getTime() ?? null },
        load!.now.getTime(),
      );
      if (decision.outcome === 'admit') {
        await tx`
          INSERT INTO telephony.trunk_calls (call_id, trunk_id, account_id, instance)
          VALUES (${callId}, ${trunkId}, ${accountId}, ${this.instance}) ON CONFLICT (call_id) DO NOTHING`;
        const next = decision.nextDialAt === null ? null : new Date(decision.nextDialAt);
        await tx`UPDATE telephony.trunks SET next_dial_at = ${next} WHERE id = ${trunkId}`;
      }
      return decision;
    });
    if (!admission) throw new AppError('SIP_TRUNK_NOT_FOUND');
    this.onDecided(admission);
    return admission;
  }

  /** The call ended: its trunk has a slot free again. */
  async release(callId: string): Promise<void> {
    await this.sql`DELETE FROM telephony.trunk_calls WHERE call_id = ${callId}`;
  }

  /** Drops every call this instance held (when it stops: its calls end with it). */
  async releaseAll(): Promise<number> {
    const rows = await this
      .sql`DELETE FROM telephony.trunk_calls WHERE instance = ${this.instance} RETURNING call_id`;
    return rows.length;
  }
}
