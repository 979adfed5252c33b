import { AppError, DISCOVERY, type ServiceDeps, type Subscription, serveRpc } from '@voice/shared';
import * as catalogue from '../domain/catalogue/index';

/** The public catalogue over the bus: decode, look up, encode. */
export function serveDiscovery(deps: ServiceDeps): Subscription[] {
  const options = { queue: 'agent', log: deps.log };
  return [
    serveRpc(deps.bus, DISCOVERY.listIndustries, async () => catalogue.listIndustries(), options),
    serveRpc(
      deps.bus,
      DISCOVERY.listAgentTypes,
      async ({ industry }) => {
        const found = catalogue.findIndustry(industry);
        if (!found) {
          throw new AppError(
            'INDUSTRY_NOT_FOUND',
            `Unknown industry '${industry.slice(0, 100)}'; see GET /v1/industries`,
          );
        }
        return catalogue.listAgentTypes(found.id);
      },
      options,
    ),
    serveRpc(deps.bus, DISCOVERY.listVoices, async () => catalogue.listVoices(), options),
    serveRpc(deps.bus, DISCOVERY.listLanguages, async () => catalogue.listLanguages(), options),
    serveRpc(deps.bus, DISCOVERY.listModels, async () => catalogue.listModels(), options),
  ];
}
