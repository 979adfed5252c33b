import type { Clock } from '@voice/shared';

/** A clock that stands still until the test moves it: time is driven, never waited for. */
export class ManualClock implements Clock {
  private at: number;

  constructor(iso: string) {
    this.at = Date.parse(iso);
  }

  now(): Date {
    return new Date(this.at);
  }

  set(iso: string): void {
    this.at = Date.parse(iso);
  }
}
