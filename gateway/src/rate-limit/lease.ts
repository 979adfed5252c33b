import type { Plan } from '@voice/shared';

/** How long a lease may be drawn on: bounds how stale its key check can get (see RateLimiter). */
export const LEASE_MS = 500;
/** A key sending fewer requests a second than this to one instance is counted one batch at a time. */
export const LEASE_MIN_RATE = 50;
/** At most this many places in one lease. */
export const LEASE_MAX = 500;

/** Places in a key's count that one statement took ahead of the requests that will use them. */
export interface KeyLease {
  bucket: string;
  /** The next place to hand out, and the last one of the lease. */
  next: number;
  last: number;
  limit: number;
  plan: Plan;
  rateLimitOverride: number | null;
  windowStart: number;
  /** The database's clock (Unix seconds, fractional) when the lease was granted, and ours then. */
  grantedAtDb: number;
  grantedAtLocal: number;
  /** Local time after which the lease is not drawn on: LEASE_MS, or the window's end if sooner. */
  expiresAt: number;
  timer: NodeJS.Timeout | undefined;
}

/** Places taken from a lease: the last one's position in its key's count, as a statement would give it. */
export interface LeasedPlace {
  position: number;
  lease: KeyLease;
  /** The database's clock now, estimated from the lease's. */
  nowDb: number;
}

/**
 * The leases of one gateway instance, one per key at most. Places never used are given back when
 * a lease ends (`giveBack`), so a key that slows down is not charged for requests it never sent.
 */
export class KeyLeases {
  private readonly leases = new Map<string, KeyLease>();

  constructor(private readonly giveBack: (bucket: string, windowStart: number, unused: number) => void) {}

  has(bucket: string): boolean {
    const lease = this.leases.get(bucket);
    return lease !== undefined && this.usable(lease, Date.now());
  }

  /**
   * The key's next `weight` places, if its lease is still good and holds that many (a charge it
   * cannot cover is counted in the database; the lease goes on serving smaller ones).
   */
  take(bucket: string, weight: number): LeasedPlace | undefined {
    const lease = this.leases.get(bucket);
    if (!lease) return undefined;
    const now = Date.now();
    if (!this.usable(lease, now)) {
      this.end(lease);
      return undefined;
    }
    if (lease.last - lease.next + 1 < weight) return undefined;
    lease.next += weight;
    const position = lease.next - 1;
    return { position, lease, nowDb: lease.grantedAtDb + (now - lease.grantedAtLocal) / 1000 };
  }

  grant(lease: Omit<KeyLease, 'timer'>): void {
    const previous = this.leases.get(lease.bucket);
    if (previous) this.end(previous);
    const held: KeyLease = { ...lease, timer: undefined };
    held.timer = setTimeout(() => this.end(held), Math.max(0, held.expiresAt - Date.now()));
    held.timer.unref();
    this.leases.set(held.bucket, held);
  }

  /** Ends the key's lease at once (its key was revoked, say). */
  drop(bucket: string): void {
    const lease = this.leases.get(bucket);
    if (lease) this.end(lease);
  }

  dropAll(): void {
    for (const lease of [...this.leases.values()]) this.end(lease);
  }

  private usable(lease: KeyLease, now: number): boolean {
    return now < lease.expiresAt && lease.next <= lease.last;
  }

  private end(lease: KeyLease): void {
    clearTimeout(lease.timer);
    if (this.leases.get(lease.bucket) === lease) this.leases.delete(lease.bucket);
    const unused = lease.last - lease.next + 1;
    // Marked used up, so a second end (timer and drop both) gives nothing back twice.
    lease.next = lease.last + 1;
    // A lease never outlives its window, so its places always belong to the window they came from.
    if (unused > 0) this.giveBack(lease.bucket, lease.windowStart, unused);
  }
}

/**
 * Places charged per key per second on this instance (a request is one, a GraphQL document one per
 * root field): how many the previous whole second saw. Enough to tell a key sending hundreds a
 * second (worth a lease) from one sending a few.
 */
export class DemandMeter {
  private readonly seconds = new Map<string, { second: number; count: number; previous: number }>();

  hit(bucket: string, weight: number): void {
    const second = Math.floor(Date.now() / 1000);
    const meter = this.seconds.get(bucket);
    if (!meter) {
      this.seconds.set(bucket, { second, count: weight, previous: 0 });
      return;
    }
    if (meter.second !== second) {
      meter.previous = meter.second === second - 1 ? meter.count : 0;
      meter.second = second;
      meter.count = 0;
    }
    meter.count += weight;
  }

  /** Places the key was charged in the last whole second (0 if it was quiet since). */
  rate(bucket: string): number {
    const meter = this.seconds.get(bucket);
    if (!meter) return 0;
    const second = Math.floor(Date.now() / 1000);
    if (meter.second === second) return meter.previous;
    return meter.second === second - 1 ? meter.count : 0;
  }

  /** Forgets keys quiet for two seconds or more (called about once a minute). */
  sweep(): void {
    const second = Math.floor(Date.now() / 1000);
    for (const [bucket, meter] of this.seconds) if (meter.second < second - 1) this.seconds.delete(bucket);
  }
}
