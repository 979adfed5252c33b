export {
  type AddressClass,
  type AddressPolicyOptions,
  classifyAddress,
  describeAddressClass,
  isAllowedAddress,
  isAllowedClass,
} from './address-policy';
export * from './free-port';
export {
  ADDRESS_NOT_ALLOWED,
  AddressNotAllowedError,
  createGuardedLookup,
  type GuardedLookupOptions,
} from './guarded-lookup';
export {
  checkWebhookUrl,
  WEBHOOK_URL_MAX_LENGTH,
  type WebhookUrlOptions,
  type WebhookUrlVerdict,
} from './webhook-url';
