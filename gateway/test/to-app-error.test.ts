import { describe, expect, it } from 'vitest';
import { toAppError } from '../src/http/to-app-error';

/**
 * The database refusing connections is an outage the client may retry, not our fault: 503. Found by
 * the fault suite (`pnpm test:faults`): a gateway restarted while the PostgreSQL server was full
 * answered 500 to every request for as long as it stayed full.
 */
describe('toAppError: the database unavailable', () => {
  it.each([
    ['53300', 'too many connections (max_connections reached)'],
    ['57P03', 'cannot connect now (starting up or shutting down)'],
    ['57P01', 'terminated by an administrator'],
    ['ECONNREFUSED', 'nothing listening'],
    ['CONNECTION_CLOSED', 'the connection closed under the query'],
  ])('%s (%s) is a 503', (code) => {
    const error = Object.assign(new Error('database failure'), { code });
    const mapped = toAppError(error, undefined);
    expect(mapped.code).toBe('SERVICE_UNAVAILABLE');
    expect(mapped.status).toBe(503);
  });

  it('an unknown failure stays a 500', () => {
    expect(toAppError(Object.assign(new Error('boom'), { code: 'XX000' }), undefined).status).toBe(500);
  });
});
