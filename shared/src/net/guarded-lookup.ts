import { promises as dns, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type AddressClass, classifyAddress, describeAddressClass, isAllowedClass } from './address-policy';

export const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';

/**
 * A connection refused because its host resolved to an address the policy does not allow. Carries
 * a `code` like the system errors a connection can fail with, so a delivery log can record it the
 * same way (through fetch it arrives as the `cause` of the TypeError).
 */
export class AddressNotAllowedError extends Error {
  readonly code = ADDRESS_NOT_ALLOWED;

  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly addressClass: AddressClass,
  ) {
    super(
      `${hostname} resolves to ${describeAddressClass(addressClass)} (${address}); connection not allowed`,
    );
    this.name = 'AddressNotAllowedError';
  }
}

export interface GuardedLookupOptions {
  /** The operator setting WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** All addresses for a name. Default: `dns.lookup` with `all: true`; injectable for tests. */
  resolve?: (hostname: string, options: LookupAllOptions) => Promise<LookupAddress[]>;
}

/**
 * A `lookup` for `net.connect` / `tls.connect` / `http.request` / undici's `connect.lookup` that
 * checks the addresses at connect time, so a name that resolved to a public address when the
 * webhook was saved cannot be rebound to 127.0.0.1 or 169.254.169.254 for the delivery.
 *
 * Every address the name resolves to must be allowed, for both the `{ all: true }` form (used by
 * Node's happy-eyeballs connect) and the single-address form; it is the same rule as
 * `checkWebhookUrl`, and a name that changed from all-public to partly-private since it was saved
 * is suspect rather than something to route around.
 *
 * Node does not call `lookup` for a host that is already an IP literal: check those with
 * `isAllowedAddress` (or `checkWebhookUrl`) before connecting.
 */
export function createGuardedLookup(options: GuardedLookupOptions): LookupFunction {
  const resolve = options.resolve ?? ((hostname, lookupOptions) => dns.lookup(hostname, lookupOptions));
  return (hostname, lookupOptions, callback) => {
    const allOptions: LookupAllOptions = { ...lookupOptions, family: familyOf(lookupOptions), all: true };
    resolve(hostname, allOptions).then(
      (addresses) => {
        const refusal = check(hostname, addresses, options.allowPrivate);
        // Answer outside the promise chain: an exception thrown by the callback must surface, not
        // become an unhandled rejection or a second callback.
        if (refusal) process.nextTick(callback, refusal, '', 0);
        else if (lookupOptions.all) process.nextTick(callback, null, addresses);
        else {
          const [first] = addresses as [LookupAddress];
          process.nextTick(callback, null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => process.nextTick(callback, error, '', 0),
    );
  };
}

function check(hostname: string, addresses: LookupAddress[], allowPrivate: boolean): Error | undefined {
  if (addresses.length === 0) {
    return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  }
  for (const { address } of addresses) {
    const addressClass = classifyAddress(address);
    if (!isAllowedClass(addressClass, { allowPrivate })) {
      return new AddressNotAllowedError(hostname, address, addressClass);
    }
  }
  return undefined;
}

/** `dns.lookup` accepts 'IPv4'/'IPv6' for compatibility; pass on the numeric form it documents. */
function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const family = options.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}
