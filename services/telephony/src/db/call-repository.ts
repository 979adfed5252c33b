import {
  EVENTS,
  enqueueEvent,
  eventSubject,
  type SipCallProgress,
  type Sql,
  transaction,
} from '@voice/shared';

export type CallState = 'dialing' | 'ringing' | 'answered' | 'ended';

export interface CallRow {
  call_id: string;
  account_id: string;
  trunk_id: string;
  instance: string;
  state: CallState;
  sequence: number;
  answered_at: Date | null;
}

/** A live call whose instance's lease lapsed, with the last moment that instance was known alive. */
export interface OrphanRow extends CallRow {
  last_seen: Date;
}

/** One progress step to record and publish: the event's data without call id and sequence. */
export type ProgressStep = Omit<SipCallProgress, 'call_id' | 'sequence'>;

const STATE_OF: Record<SipCallProgress['type'], CallState> = {
  ringing: 'ringing',
  answered: 'answered',
  ended: 'ended',
};

/** The telephony schema's SQL for SIP calls and instance leases. */
export const callRepository = {
  /** Creates the call's row unless it exists; answers the row as it now stands and whether it is new. */
  async insertOnce(
    sql: Sql,
    call: { callId: string; accountId: string; trunkId: string; instance: string },
  ): Promise<{ created: boolean; row: CallRow | undefined }> {
    const [created] = await sql<CallRow[]>`
      INSERT INTO telephony.calls (call_id, account_id, trunk_id, instance)
      VALUES (${call.callId}, ${call.accountId}, ${call.trunkId}, ${call.instance})
      ON CONFLICT (call_id) DO NOTHING RETURNING *`;
    if (created) return { created: true, row: created };
    return { created: false, row: await callRepository.find(sql, call.accountId, call.callId) };
  },

  async find(sql: Sql, accountId: string, callId: string): Promise<CallRow | undefined> {
    const [row] = await sql<CallRow[]>`
      SELECT * FROM telephony.calls WHERE call_id = ${callId} AND account_id = ${accountId}`;
    return row;
  },

  /**
   * Moves the call on and queues its progress event in one transaction, only while the call is
   * live and still `instance`'s: false when it had ended (or changed hands), and nothing is
   * published. `ended` also frees the call's slot on its trunk.
   */
  async progress(sql: Sql, call: CallRow, step: ProgressStep): Promise<boolean> {
    return transaction(sql, async (tx) => {
      const answeredAt = step.type === 'answered' ? new Date(step.at) : null;
      const endedAt = step.type === 'ended' ? new Date(step.at) : null;
      const [row] = await tx<{ sequence: number }[]>`
        UPDATE telephony.calls
           SET state = ${STATE_OF[step.type]}, sequence = sequence + 1,
               answered_at = coalesce(answered_at, ${answeredAt}), ended_at = ${endedAt}
         WHERE call_id = ${call.call_id} AND instance = ${call.instance} AND state <> 'ended'
        RETURNING sequence`;
      if (!row) return false;
      if (step.type === 'ended') await tx`DELETE FROM telephony.trunk_calls WHERE call_id = ${call.call_id}`;
      const data: SipCallProgress = { call_id: call.call_id, sequence: row.sequence, ...step };
      await enqueueEvent(tx, 'telephony', {
        subject: eventSubject(EVENTS.sipCallProgress, call.account_id, call.call_id),
        accountId: call.account_id,
        data,
      });
      return true;
    });
  },

  /** This instance is alive for `leaseMs` more. */
  async renewLease(sql: Sql, instance: string, leaseMs: number): Promise<void> {
    await sql`
      INSERT INTO telephony.instances (id, renewed_at, lease_until)
      VALUES (${instance}, now(), now() + make_interval(secs => ${leaseMs / 1000}))
      ON CONFLICT (id) DO UPDATE SET renewed_at = excluded.renewed_at, lease_until = excluded.lease_until`;
  },

  /** A clean stop: this instance's calls have ended, its lease goes. */
  async dropLease(sql: Sql, instance: string): Promise<void> {
    await sql`DELETE FROM telephony.instances WHERE id = ${instance}`;
  },

  /**
   * Live calls of instances whose lease lapsed (or that never held one), oldest first; with
   * `callId`, that call only (if it is one).
   */
  async orphans(sql: Sql, self: string, limit: number, callId?: string): Promise<OrphanRow[]> {
    return sql<OrphanRow[]>`
      SELECT c.*, least(now(), coalesce(i.renewed_at, c.created_at)) AS last_seen
        FROM telephony.calls c LEFT JOIN telephony.instances i ON i.id = c.instance
       WHERE c.state <> 'ended' AND c.instance <> ${self} AND (i.id IS NULL OR i.lease_until < now())
         ${callId ? sql`AND c.call_id = ${callId}` : sql``}
       ORDER BY c.created_at LIMIT ${limit}`;
  },

  /** Forgets lapsed instances that carry no live call any more. */
  async forgetDeadInstances(sql: Sql): Promise<void> {
    await sql`
      DELETE FROM telephony.instances i WHERE i.lease_until < now()
         AND NOT EXISTS (SELECT 1 FROM telephony.calls c WHERE c.instance = i.id AND c.state <> 'ended')`;
  },
};
