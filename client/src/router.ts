/**
 * The router this client speaks to, taken from the gateway in this workspace. The published package
 * does not ship this import: its build (scripts/build.ts) replaces it with the router's types spelled
 * out, so a third party needs only @trpc/client and @trpc/server.
 */
export type { AppRouter } from '@voice/gateway';
