/** RFC 4733 telephone events: the 4-byte payload and the digits 0-9 * # A-D (events 0-15). */
const DIGITS = '0123456789*#ABCD';

export interface TelephoneEvent {
  event: number;
  end: boolean;
  /** -dBm0, 0..63 */
  volume: number;
  /** In timestamp units (1/8000 s). */
  duration: number;
}

export function isDtmfDigit(char: string): boolean {
  return char.length === 1 && DIGITS.includes(char.toUpperCase());
}

export function digitToEvent(digit: string): number {
  const event = DIGITS.indexOf(digit.toUpperCase());
  if (digit.length !== 1 || event < 0) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`);
  return event;
}

export function eventToDigit(event: number): string | undefined {
  return DIGITS[event];
}

export function encodeTelephoneEvent(e: TelephoneEvent): Uint8Array {
  const out = new Uint8Array(4);
  out[0] = e.event & 0xff;
  out[1] = (e.end ? 0x80 : 0) | (e.volume & 0x3f);
  out[2] = (e.duration >> 8) & 0xff;
  out[3] = e.duration & 0xff;
  return out;
}

export function decodeTelephoneEvent(payload: Uint8Array): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  return {
    event: payload[0]!,
    end: (payload[1]! & 0x80) !== 0,
    volume: payload[1]! & 0x3f,
    duration: (payload[2]! << 8) | payload[3]!,
  };
}

/**
 * The packets that carry one digit, one per 20 ms tick: updates with a growing duration, then
 * the final packet (end bit) three times, as RFC 4733 asks, so a single loss cannot drop the end.
 */
export function dtmfPayloads(digit: string, durationMs: number, volume = 10): Uint8Array[] {
  const event = digitToEvent(digit);
  const ticks = Math.max(2, Math.round(durationMs / 20));
  const payloads: Uint8Array[] = [];
  for (let i = 1; i < ticks; i++) {
    payloads.push(encodeTelephoneEvent({ event, end: false, volume, duration: i * 160 }));
  }
  const final = encodeTelephoneEvent({ event, end: true, volume, duration: ticks * 160 });
  payloads.push(final, final, final);
  return payloads;
}

/** Announces each received digit once: all packets of one event share its RTP timestamp. */
export class DtmfDetector {
  #last: { ssrc: number; timestamp: number } | undefined;

  detect(ssrc: number, timestamp: number, payload: Uint8Array): string | undefined {
    const event = decodeTelephoneEvent(payload);
    const digit = event && eventToDigit(event.event);
    if (!digit) return undefined;
    if (this.#last && this.#last.ssrc === ssrc && this.#last.timestamp === timestamp) return undefined;
    this.#last = { ssrc, timestamp };
    return digit;
  }
}
