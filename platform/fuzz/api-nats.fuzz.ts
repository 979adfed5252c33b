import { infraModes } from '@voice/shared/testing';
import { describe } from 'vitest';
import { fuzzSuite } from './support/suite';

/**
 * The HTTP fuzz against the nats mode (NATS + PostgreSQL), when the run has it (REQUIRE_INFRA=1
 * makes the global setup fail without it). Its own file, to run beside the embedded one.
 */
describe.runIf(infraModes().includes('nats'))('HTTP fuzz (nats)', () => fuzzSuite('nats'));
