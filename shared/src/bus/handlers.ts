import type { Logger } from '../log';
import { type BusMessage, HEADER, type Listener, type Responder } from './types';
import { type EncodedReply, encodeFailure, encodeSuccess } from './wire';

/**
 * Runs a responder and encodes its answer for the wire; never throws. A failure that is not a
 * catalogue error becomes INTERNAL for the caller and is logged here with the request id, the
 * only place its details survive. `subject` is the subject the responder was registered on.
 */
export async function answerRequest(
  responder: Responder,
  msg: BusMessage,
  subject: string,
  log: Logger,
): Promise<EncodedReply> {
  try {
    return encodeSuccess(await responder(msg));
  } catch (error) {
    const failure = encodeFailure(error);
    if (failure.errorCode === 'INTERNAL') {
      log.error({ err: error, subject, request_id: msg.headers[HEADER.requestId] }, 'responder failed');
    }
    return failure;
  }
}

/** Runs a plain subscriber; a failure is logged, never propagated, so delivery goes on. */
export async function runListener(listener: Listener, msg: BusMessage, log: Logger): Promise<void> {
  try {
    await listener(msg);
  } catch (error) {
    log.error({ err: error, subject: msg.subject }, 'subscriber failed');
  }
}
