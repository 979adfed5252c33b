import type { Sql } from '@voice/shared';
import { AppError, type Config } from '@voice/shared';
import { trunkRepository } from '../db/trunk-repository';
import type { TrunkRow } from '../db/trunk-rows';
import { chooseRoute, type RouteDecision } from '../domain/routing';

export type TrunkRouteDecision = Exclude<RouteDecision<TrunkRow>, { carrier: 'none' }>;

/**
 * Routes a call by its source number. The decision carries the whole trunk row, password
 * included, for the SIP dial path in this service; only its public view (toSipTrunk) leaves it.
 */
export class TrunkRouter {
  constructor(
    private readonly sql: Sql,
    private readonly simulatedCarrier: Config['SIMULATED_CARRIER'],
    private readonly onRouted: (matched: TrunkRouteDecision['matched'] | 'refused') => void = () => {},
  ) {}

  async route(accountId: string, sourceNumber: string): Promise<TrunkRouteDecision> {
    const candidates = await trunkRepository.routeCandidates(this.sql, accountId, sourceNumber);
    const decision = chooseRoute(candidates, this.simulatedCarrier);
    if (decision.carrier === 'none') {
      this.onRouted('refused');
      throw new AppError('NO_SIP_TRUNK', [
        {
          loc: ['body', 'source_number'],
          msg:
            `no SIP trunk lists ${sourceNumber} and the account has no default trunk; the simulated carrier ` +
            'is off (SIMULATED_CARRIER=off)',
          type: 'no_sip_trunk',
        },
      ]);
    }
    this.onRouted(decision.matched);
    return decision;
  }
}
