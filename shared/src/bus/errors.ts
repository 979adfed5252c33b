import { AppError, type ErrorCode, type ValidationIssue } from '../errors';

/** Nobody answered in time: the service is overloaded or stuck (504 at the edge). */
export class BusTimeoutError extends AppError {
  readonly subject: string;
  constructor(subject: string, options?: ErrorOptions) {
    super('SERVICE_TIMEOUT', 'A backing service did not answer in time', options);
    this.name = 'BusTimeoutError';
    this.subject = subject;
  }
}

/** No service listens on the subject: it is down (503 at the edge). Fails at once, no waiting. */
export class BusNoRespondersError extends AppError {
  readonly subject: string;
  constructor(subject: string, options?: ErrorOptions) {
    super('SERVICE_UNAVAILABLE', 'A backing service is unavailable', options);
    this.name = 'BusNoRespondersError';
    this.subject = subject;
  }
}

/** The responder answered with a catalogue error; it carries that code unchanged. */
export class BusRemoteError extends AppError {
  readonly subject: string;
  constructor(subject: string, code: ErrorCode, detail: string | ValidationIssue[] | undefined) {
    super(code, detail);
    this.name = 'BusRemoteError';
    this.subject = subject;
  }
}
