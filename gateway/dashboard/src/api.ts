import { storedKey } from './key';

/** The key was refused (HTTP 401 or UNAUTHENTICATED): the app signs out and says so. */
export class AuthError extends Error {}

/** One field a 422 refused: its path in the input ("maxConcurrentCalls", "callingWindow.start") and why. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** Any other failure of an operation, with the server's message (and, for a refused input, its fields). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** The rate-limit headroom of the key, from the last answer's X-RateLimit-* headers. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Unix seconds when the window ends. */
  reset: number;
}

type Listener<T> = (value: T) => void;
const rateListeners = new Set<Listener<RateLimit>>();
const authListeners = new Set<Listener<string>>();
let lastRate: RateLimit | undefined;

export function onRateLimit(listener: Listener<RateLimit>): () => void {
  rateListeners.add(listener);
  if (lastRate) listener(lastRate);
  return () => rateListeners.delete(listener);
}

/** Told when the server refuses the key, with its message. */
export function onAuthRefused(listener: Listener<string>): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

export function authRefused(message: string): void {
  for (const listener of authListeners) listener(message);
}

function readRate(headers: Headers): void {
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (!headers.has('x-ratelimit-limit') || !Number.isFinite(limit)) return;
  lastRate = { limit, remaining, reset };
  for (const listener of rateListeners) listener(lastRate);
}

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: {
    message: string;
    extensions?: { code?: string; issues?: { loc: (string | number)[]; msg: string }[] };
  }[];
  error?: { message?: string };
}

/** One query or mutation over POST /graphql with the signed-in key (plain fetch: no client library). */
export async function gql<T>(
  query: string,
  variables: Record<string, unknown> = {},
  key = storedKey(),
): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  readRate(response.headers);
  const body = (await response.json().catch(() => ({}))) as GraphQLAnswer<T>;
  const first = body.errors?.[0];
  if (response.status === 401 || first?.extensions?.code === 'UNAUTHENTICATED') {
    const message = first?.message ?? body.error?.message ?? 'Missing or invalid API key';
    authRefused(message);
    throw new AuthError(message);
  }
  if (first) {
    // A 422's issues name the input's fields after its first element (the body): loc ["body", "maxConcurrentCalls"].
    const issues = (first.extensions?.issues ?? []).map((issue) => ({
      field: issue.loc.slice(1).join('.'),
      message: issue.msg,
    }));
    throw new ApiError(first.message, first.extensions?.code, issues);
  }
  if (!response.ok || !body.data) {
    throw new ApiError(body.error?.message ?? `The server answered ${response.status}`, undefined);
  }
  return body.data;
}

/**
 * A fresh idempotency key (32 hex digits). Not crypto.randomUUID: that needs a secure context, and the
 * gateway may be served over plain http on a private network.
 */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}
