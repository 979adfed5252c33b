import { z } from 'zod';
import { Uuid } from './common';

/**
 * Core (not durable) notices: "something another service may keep a copy of has changed". They
 * are published after the change commits and before the operation answers, so a later request
 * never meets an outdated copy. A notice missed while a subscriber was disconnected is covered by
 * the subscriber (it drops its copies when the bus reconnects, and keeps them only briefly).
 */
export interface NoticeContract<D extends z.ZodType = z.ZodType> {
  prefix: string;
  data: D;
}

export const NOTICES = {
  /** An agent's settings, prompt, active version or existence changed. */
  agentChanged: { prefix: 'notices.agent.changed', data: z.object({ agent_id: Uuid }) },
} as const satisfies Record<string, NoticeContract>;

/** The subject of one notice about `entityId` in `accountId`. */
export function noticeSubject(contract: NoticeContract, accountId: string, entityId: string): string {
  return `${contract.prefix}.${accountId}.${entityId}`;
}

/** Every notice of this kind. */
export function noticeFilter(contract: NoticeContract): string {
  return `${contract.prefix}.>`;
}
