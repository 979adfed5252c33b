import { describe } from 'vitest';
import { fuzzSuite } from './support/suite';

/**
 * The HTTP fuzz against the embedded mode. Each mode has a file of its own so that the two run
 * side by side (vitest.fuzz.config.ts), each on its own platform.
 */
describe('HTTP fuzz (embedded)', () => fuzzSuite('embedded'));
