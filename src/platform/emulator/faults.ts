import { Prng } from "./prng.ts";

export interface FaultSettings {
  /** Share of requests answered THROTTLED whatever the bucket holds, 0..1. */
  throttleRate?: number;
  /** Share of requests answered HTTP 502 or 503, 0..1. */
  errorRate?: number;
  /** Delay before every answer. */
  latencyMs?: number;
  /** Root fields (e.g. `orderEditBegin`) whose requests are answered HTTP 503: one operation failing while the rest works. */
  failFields?: readonly string[];
  /**
   * Root fields whose next request is carried out and then answered HTTP 503, once each: the
   * change happened but the caller never heard (a lost answer), so its retry meets the change.
   */
  loseAnswerFields?: readonly string[];
}

/**
 * Injected faults. Decisions come from a seeded PRNG, so a test sees the same sequence of faults on
 * every run; a rate of 0 or 1 draws nothing and is exact.
 */
export class Faults {
  #settings: FaultSettings;
  readonly #prng: Prng;

  constructor(settings: FaultSettings = {}, seed = 1) {
    this.#settings = { ...settings };
    // A stream of its own: changing fault settings never changes the catalog, nor the reverse.
    this.#prng = new Prng(seed ^ 0x5eed_fa17);
  }

  /** Replaces the settings: `{}` turns every fault off. */
  configure(settings: FaultSettings): void {
    this.#settings = { ...settings };
  }

  get settings(): FaultSettings {
    return { ...this.#settings };
  }

  get latencyMs(): number {
    return Math.max(0, this.#settings.latencyMs ?? 0);
  }

  #hit(rate: number | undefined): boolean {
    if (!rate || rate <= 0) return false;
    if (rate >= 1) return true;
    return this.#prng.next() < rate;
  }

  /** 502 or 503 when this request should fail, else undefined. */
  serverError(): 502 | 503 | undefined {
    if (!this.#hit(this.#settings.errorRate)) return undefined;
    return this.#prng.next() < 0.5 ? 502 : 503;
  }

  /** 503 when the operation selects a root field set to fail, else undefined. */
  fieldFailure(rootFields: readonly string[]): 503 | undefined {
    const failing = this.#settings.failFields ?? [];
    return rootFields.some((f) => failing.includes(f)) ? 503 : undefined;
  }

  /** 503 when the operation's answer is to be lost (once per listed field), else undefined; call after carrying it out. */
  lostAnswer(rootFields: readonly string[]): 503 | undefined {
    const losing = this.#settings.loseAnswerFields ?? [];
    const hit = rootFields.find((f) => losing.includes(f));
    if (hit === undefined) return undefined;
    this.#settings = { ...this.#settings, loseAnswerFields: losing.filter((f) => f !== hit) };
    return 503;
  }

  throttle(): boolean {
    return this.#hit(this.#settings.throttleRate);
  }
}
