import type { SipCallEnd, SipConversation } from '@voice/shared';
import type { Child } from '../support';
import type { HostCommand, HostMessage, TakeReply } from './protocol';

type Command = HostCommand extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;

/** The bench's side of the service host's IPC: requests with replies, and the calls' ends. */
export class HostClient {
  #next = 1;
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #ends = new Map<string, SipCallEnd>();
  readonly #endWaiters = new Map<string, (end: SipCallEnd) => void>();

  constructor(readonly host: Child) {
    host.child.on('message', (message: HostMessage) => {
      if (message.type === 'ended') {
        this.#ends.set(message.callId, message.end);
        this.#endWaiters.get(message.callId)?.(message.end);
        return;
      }
      const waiter = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (!waiter) return;
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(`conversation host: ${message.error}`));
    });
  }

  get pid(): number {
    return this.host.pid;
  }

  #request<T>(command: Command): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.host.child.send({ ...command, id } as HostCommand);
    });
  }

  dial(
    callId: string,
    uri: string,
    conversation: SipConversation,
    speech: { start_flow: string; end_flow: string },
  ): Promise<unknown> {
    return this.#request({ type: 'dial', callId, uri, conversation, speech });
  }

  take(): Promise<TakeReply> {
    return this.#request({ type: 'take' });
  }

  hangover(ms: number | null): Promise<void> {
    return this.#request({ type: 'hangover', ms });
  }

  /** The call's end as its ended event states it; rejects after `ms`. */
  ended(callId: string, ms: number): Promise<SipCallEnd> {
    const known = this.#ends.get(callId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#endWaiters.delete(callId);
        reject(new Error(`call ${callId} did not end within ${ms} ms`));
      }, ms);
      this.#endWaiters.set(callId, (end) => {
        clearTimeout(timer);
        this.#endWaiters.delete(callId);
        resolve(end);
      });
    });
  }
}
