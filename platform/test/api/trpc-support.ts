import { isVoiceError, type VoiceClientError } from '../../../client/src/index';

/** A tRPC subscription followed by a test: what it sent, how it failed, when it started and ended. */
export interface Followed<T> {
  got: { id: string; data: T }[];
  errors: unknown[];
  /** The stream is open (the server listens from here on), or it failed. */
  started: Promise<void>;
  /** `until` was met, the stream ended or failed. */
  done: Promise<void>;
  stop(): void;
}

/** Collects a subscription's tracked events until `until` says it has them all. */
export function follow<T>(
  subscribe: (handlers: {
    onStarted: () => void;
    onData: (event: { id: string; data: T }) => void;
    onError: (error: unknown) => void;
    onComplete: () => void;
  }) => { unsubscribe(): void },
  until: (got: { id: string; data: T }[]) => boolean = () => false,
): Followed<T> {
  const got: { id: string; data: T }[] = [];
  const errors: unknown[] = [];
  let started!: () => void;
  let finished!: () => void;
  const startedP = new Promise<void>((resolve) => {
    started = resolve;
  });
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const subscription = subscribe({
    onStarted: () => started(),
    onData: (event) => {
      got.push(event);
      if (until(got)) finished();
    },
    onError: (error) => {
      errors.push(error);
      started();
      finished();
    },
    onComplete: () => finished(),
  });
  return { got, errors, started: startedP, done, stop: () => subscription.unsubscribe() };
}

/** The error a promise rejects with, which must be the API's. */
export async function failure(promise: Promise<unknown>): Promise<VoiceClientError> {
  try {
    await promise;
  } catch (error) {
    if (isVoiceError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
