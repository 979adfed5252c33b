import type { CallEnded } from '../sip';

/** Words for an end the SIP codes do not explain by themselves. */
export function legDetail(end: CallEnded | null): string | null {
  switch (end?.cause) {
    case 'no_response':
      return 'the trunk did not answer the INVITE';
    case 'transport_error':
      return 'the trunk could not be reached';
    default:
      return null;
  }
}

/** Runs `work` until it succeeds, at most `attempts` times with a doubling pause; rethrows the last error. */
export async function withRetries<T>(
  work: () => Promise<T>,
  onError: (error: unknown) => void,
  attempts = 5,
  firstDelayMs = 200,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      onError(error);
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, firstDelayMs * 2 ** (attempt - 1)));
    }
  }
}
