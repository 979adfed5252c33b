/** What JetStream answers a publish with: the stored message's place, or why it was refused. */
interface PubAckReply {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

/** The stream refused a durable publish (too large, sealed, storage full, ...): nothing was stored. */
export class DurablePublishRefusedError extends Error {
  constructor(
    readonly subject: string,
    readonly code: number | undefined,
    description: string,
  ) {
    super(`the stream refused the event on ${subject}: ${description}`);
    this.name = 'DurablePublishRefusedError';
  }
}

/**
 * Reads JetStream's answer to a publish, as @nats-io/jetstream's own publish does: an `error`
 * means nothing was stored; otherwise the answer must name the stream that stored it.
 */
export function readPubAck(subject: string, body: string): { duplicate: boolean } {
  let ack: PubAckReply;
  try {
    ack = JSON.parse(body) as PubAckReply;
  } catch {
    throw new DurablePublishRefusedError(subject, undefined, 'the acknowledgement is not JSON');
  }
  if (ack.error) {
    throw new DurablePublishRefusedError(
      subject,
      ack.error.err_code,
      ack.error.description ?? `error ${ack.error.code ?? 'without a code'}`,
    );
  }
  if (typeof ack.stream !== 'string' || ack.stream === '') {
    throw new DurablePublishRefusedError(subject, undefined, 'the acknowledgement names no stream');
  }
  return { duplicate: ack.duplicate === true };
}
