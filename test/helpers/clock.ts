/**
 * A clock a test sets and advances by hand, for the windows the service counts by an injected
 * `now` (ms since the epoch) instead of the database's clock: the API's rate limit
 * (`startTestApp`/`useTestEnv` option `now`, RATE_LIMIT_WINDOW_SECONDS), the failed
 * authentications per address (the same option) and the console's login attempts
 * (LOGIN_WINDOW_SECONDS). A test that must count in one window starts one at a window's start;
 * one that must see a window end advances it: nothing waits on the wall clock.
 */
export class TestClock {
  private ms: number;

  /** At `ms` (default: the wall clock's time now, to the second). */
  constructor(ms = Math.floor(Date.now() / 1000) * 1000) {
    this.ms = ms;
  }

  /** The time, in ms since the epoch: pass this (bound) as the app's `now`. */
  readonly now = (): number => this.ms;

  advance(ms: number): void {
    this.ms += ms;
  }

  /**
   * Moves to `secondsIn` seconds into the next fixed window of `windowSeconds` (windows are
   * aligned to the epoch): a window no request has been counted in yet by this clock.
   */
  nextWindow(windowSeconds: number, secondsIn = 0): void {
    const windowMs = windowSeconds * 1000;
    this.ms = (Math.floor(this.ms / windowMs) + 1) * windowMs + secondsIn * 1000;
  }
}
