import type { Call, EndpointEventBody, EndpointEventKind } from '@voice/shared/contracts';
import { callEndedPayload, type PayloadLinks } from './payload';

/** What an endpoint event is about, before it is wrapped. */
export interface EndpointOccurrence {
  kind: EndpointEventKind;
  eventId: string;
  occurredAt: string;
  accountId: string;
  data: unknown;
}

/** The documented envelope of every endpoint delivery (ENDPOINT_EVENT_PAYLOADS). */
export function endpointBody(occurrence: EndpointOccurrence): EndpointEventBody {
  return {
    event: occurrence.kind,
    event_id: occurrence.eventId,
    occurred_at: occurrence.occurredAt,
    account_id: occurrence.accountId,
    data: occurrence.data,
  };
}

/** A call as endpoint events carry it: CALL_ENDED's data shape, whatever the call's status. */
export function endpointCallData(call: Call, links: PayloadLinks) {
  return callEndedPayload(call, links).data;
}
