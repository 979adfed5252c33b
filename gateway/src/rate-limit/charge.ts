import { AppError, type Principal, PUBLIC_RATE_LIMIT_PER_IP } from '@voice/shared';
import { type RateLimiter, type RateLimitState, rateLimitHeaders } from './limiter';

/** A budget: an API key's, or the client IP's for whoever sends no (valid) key. */
export interface Budget {
  bucket: string;
  limit: number;
}

export function budgetOf(principal: Principal | undefined, ip: string): Budget {
  return principal
    ? { bucket: `key:${principal.keyId}`, limit: principal.rateLimitPerMinute }
    : { bucket: `ip:${ip}`, limit: PUBLIC_RATE_LIMIT_PER_IP };
}

/** The refusal of a request past its budget (429), as every surface words it. */
export function refusalOf(state: RateLimitState): AppError | undefined {
  return state.exceeded
    ? new AppError(
        'RATE_LIMITED',
        `Rate limit of ${state.limit} requests per minute exceeded; retry in ${state.retryAfter} s`,
      )
    : undefined;
}

/** A charge's answer: the headers it leaves, and its refusal if it was refused. */
export interface WeightCharge {
  state: RateLimitState;
  headers: Record<string, number>;
  refusal: AppError | undefined;
}

/**
 * Charges the rest of a request that counts as `weight` requests (one per `unit`: a GraphQL root
 * field, a tRPC batch's call), once its surface knows the weight; its first place was charged
 * before its body was read. All or nothing: a request that does not fit is refused as a whole
 * before any of it runs, and costs no more than that first place.
 */
export async function chargeWeight(
  limiter: RateLimiter,
  budget: Budget,
  weight: number,
  unit: string,
): Promise<WeightCharge> {
  const state = await limiter.hit(budget.bucket, budget.limit, weight - 1, true);
  const refusal = state.exceeded
    ? new AppError(
        'RATE_LIMITED',
        `This request counts as ${weight} requests (one per ${unit}), and ${state.remaining + 1} of the ${state.limit} a minute were left; retry in ${state.retryAfter} s or send fewer`,
      )
    : undefined;
  return { state, headers: rateLimitHeaders(state), refusal };
}
