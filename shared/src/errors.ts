/**
 * The one error catalogue. Every failure that crosses a boundary (HTTP, GraphQL, tRPC, NATS reply)
 * carries one of these codes; each transport maps it exactly once.
 */
export const errorCatalogue = {
  BAD_REQUEST: { status: 400, message: 'The request could not be understood' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid API key' },
  FORBIDDEN: { status: 403, message: 'The API key lacks the scope this operation needs' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such endpoint' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not found' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  INDUSTRY_NOT_FOUND: { status: 404, message: 'Industry not found' },
  AGENT_NOT_FOUND: { status: 404, message: 'Agent not found' },
  CALL_NOT_FOUND: { status: 404, message: 'Call not found' },
  CAMPAIGN_NOT_FOUND: { status: 404, message: 'Campaign not found' },
  PROMPT_VERSION_NOT_FOUND: { status: 404, message: 'Prompt version not found' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery not found' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  SIP_TRUNK_NOT_FOUND: { status: 404, message: 'SIP trunk not found' },
  DO_NOT_CALL_ENTRY_NOT_FOUND: { status: 404, message: 'This number is not on the do-not-call list' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed on this endpoint' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  URI_TOO_LONG: { status: 414, message: 'Request URL too long' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'Requested range not satisfiable' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  INVALID_STATE: { status: 409, message: 'The operation is not allowed in the current state' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  VALIDATION_FAILED: { status: 422, message: 'Request failed validation' },
  NO_SIP_TRUNK: {
    status: 422,
    message:
      'No SIP trunk carries calls from this source number, the account has no default trunk, and the ' +
      'simulated carrier is off',
  },
  DO_NOT_CALL: { status: 422, message: 'This number is on the account\u2019s do-not-call list' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A backing service is unavailable' },
  SHUTTING_DOWN: { status: 503, message: 'The server is shutting down; retry on another instance' },
  SERVICE_TIMEOUT: { status: 504, message: 'A backing service did not answer in time' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

/** One validation problem, in the documented shape of 422 bodies. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A typed, expected failure. `detail` is what the client sees; internals never go here. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | ValidationIssue[];

  constructor(code: ErrorCode, detail?: string | ValidationIssue[], options?: ErrorOptions) {
    const entry = errorCatalogue[code];
    super(typeof detail === 'string' ? detail : entry.message, options);
    this.name = 'AppError';
    this.code = code;
    this.status = entry.status;
    this.detail = detail ?? entry.message;
  }

  static validation(issues: ValidationIssue[]): AppError {
    return new AppError('VALIDATION_FAILED', issues);
  }

  toJSON(): SerializedAppError {
    return { code: this.code, detail: this.detail };
  }
}

export interface SerializedAppError {
  code: ErrorCode;
  detail: string | ValidationIssue[];
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Rebuilds an AppError from its wire form; unknown codes degrade to INTERNAL rather than leak. */
export function appErrorFromWire(wire: unknown): AppError {
  if (wire && typeof wire === 'object' && 'code' in wire && isErrorCode(wire.code)) {
    const detail = 'detail' in wire ? wire.detail : undefined;
    if (typeof detail === 'string' || Array.isArray(detail)) {
      return new AppError(wire.code, detail as string | ValidationIssue[]);
    }
    return new AppError(wire.code);
  }
  return new AppError('INTERNAL');
}

/**
 * PostgreSQL "data exception" (SQLSTATE class 22: a NUL byte, an out-of-range number, bad
 * encoding) means a value from the client that validation let through: a 422, never a 500.
 */
export function fromDatabaseError(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !/^22[0-9A-Z]{3}$/.test(code)) return undefined;
  return AppError.validation([
    { loc: ['body'], msg: 'A value in the request cannot be stored', type: 'invalid_value' },
  ]);
}

/**
 * Lost or refused database connections (the server restarting, killed or full): a 503 the client
 * may retry, never a 500. A connection code (ECONNRESET) is a database's only where the caller
 * knows the error came from its database client.
 */
const DATABASE_UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // admin_shutdown (also a backend whose postmaster died), crash_shutdown, cannot_connect_now
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections: the server is full (max_connections); a retry later can succeed.
  '53300',
]);

export function databaseUnavailable(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !DATABASE_UNAVAILABLE_CODES.has(code)) return undefined;
  return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable');
}
