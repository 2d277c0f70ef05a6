// A circuit breaker per provider
// (docs/models.md#failover-cooldowns-and-the-circuit-breaker): after `failures`
// failures in a row the provider is skipped for `cooldownMs`; then one trial
// call is let through (half-open): success closes the circuit, failure opens it
// again.

export type CircuitState = "closed" | "open" | "half_open";

export class CircuitOpenError extends Error {
  constructor(
    public readonly key: string,
    public readonly retryInMs: number,
  ) {
    super(`${key} failed repeatedly; Rein stops calling it for ${Math.ceil(retryInMs / 1000)} s (circuit open)`);
    this.name = "CircuitOpenError";
  }
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openedAt: number;
  trial: boolean;
}

export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();

  constructor(private readonly options: { failures?: number; cooldownMs?: number; now?: () => number } = {}) {}

  private get threshold() {
    return this.options.failures ?? 5;
  }
  private get cooldown() {
    return this.options.cooldownMs ?? 30_000;
  }
  private now() {
    return this.options.now?.() ?? Date.now();
  }

  private circuit(key: string): Circuit {
    let c = this.circuits.get(key);
    if (!c) this.circuits.set(key, (c = { state: "closed", failures: 0, openedAt: 0, trial: false }));
    return c;
  }

  state(key: string): CircuitState {
    const c = this.circuit(key);
    if (c.state === "open" && this.now() - c.openedAt >= this.cooldown) return "half_open";
    return c.state;
  }

  /** Throws CircuitOpenError when the provider must not be called now. */
  before(key: string): void {
    const c = this.circuit(key);
    if (c.state === "closed") return;
    const waited = this.now() - c.openedAt;
    if (c.state === "open" && waited < this.cooldown) throw new CircuitOpenError(key, this.cooldown - waited);
    // Half-open: one trial call at a time.
    if (c.trial) throw new CircuitOpenError(key, 1000);
    c.state = "half_open";
    c.trial = true;
  }

  success(key: string): void {
    this.circuits.set(key, { state: "closed", failures: 0, openedAt: 0, trial: false });
  }

  failure(key: string): void {
    const c = this.circuit(key);
    c.trial = false;
    c.failures++;
    if (c.state === "half_open" || c.failures >= this.threshold) {
      c.state = "open";
      c.openedAt = this.now();
    }
  }
}
