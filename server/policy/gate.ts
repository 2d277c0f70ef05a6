// PolicyGate (I9): decides every tool call from the compiled active policy
// held in memory. The database is read only to load it: at the first
// decision, after invalidate(), and in the background at most every
// recheckMs to notice a version another process saved.
import type { Db } from "@/server/db";
import { formatPolicyError, parsePolicy } from "./document";
import { decideCall } from "./decide";
import { activePolicy, latestPolicyVersion } from "./store";
import type { TeamResolution } from "./team-ids";
import type { CompiledPolicy, PolicyInput, PolicyVerdict } from "./types";

export interface PolicyGateOptions {
  /** How often a decision may trigger a background check of the latest version (default 5 s). */
  recheckMs?: number;
  now?: () => number;
  /** Told when a background check fails (the loaded policy stays in use). */
  onError?: (err: unknown) => void;
  /** How long reading a long shell command line may take before the call is asked about (default 2 s). */
  readLimitMs?: number;
}

/** Refuses everything, saying why: used when the stored active version does not parse. */
function denyAll(version: number, why: string): CompiledPolicy {
  const rule = {
    index: 0,
    level: "environment" as const,
    effect: "deny" as const,
    verdict: {
      effect: "deny" as const,
      level: "default" as const,
      rule: null,
      reason: `policy v${version} cannot be used (${why}): every call is denied`,
      policyVersion: version,
    },
    matches: () => true,
    inScope: () => true,
    byArgs: false,
  };
  return { version, ruleCount: 0, levels: { actor: [], team: [], tool: [], environment: [rule] } };
}

/** A stored version, its team rules matching by the team ids resolved when it was saved. */
export function compileStored(version: number, source: string, teams: TeamResolution): CompiledPolicy {
  const parsed = parsePolicy(source, version, teams);
  return parsed.ok ? parsed.policy : denyAll(version, parsed.errors.map(formatPolicyError).join("; "));
}

export class PolicyGate {
  private policy: CompiledPolicy | null = null;
  private loading: Promise<CompiledPolicy> | null = null;
  private checking = false;
  private checkedAt = 0;
  private generation = 0;
  private readonly recheckMs: number;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private readonly readLimitMs: number | undefined;

  constructor(
    private readonly db: Db,
    opts: PolicyGateOptions = {},
  ) {
    this.recheckMs = opts.recheckMs ?? 5000;
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
    this.readLimitMs = opts.readLimitMs;
  }

  /** The verdict for one tool call. In memory once loaded. */
  async decide(input: PolicyInput): Promise<PolicyVerdict> {
    const policy = this.policy ?? (await this.load());
    if (this.now() - this.checkedAt >= this.recheckMs) this.recheckInBackground();
    return decideCall(policy, input, { readLimitMs: this.readLimitMs });
  }

  /** The policy the next decision uses (loading it if needed). */
  async current(): Promise<CompiledPolicy> {
    return this.policy ?? this.load();
  }

  /** A new version was saved: the next decision loads it. */
  invalidate(): void {
    this.generation++;
    this.policy = null;
    this.loading = null;
  }

  /**
   * Loads the latest version now if it differs from the one in memory;
   * decisions meanwhile keep using the loaded one.
   */
  async refresh(): Promise<CompiledPolicy> {
    const generation = this.generation;
    const latest = await latestPolicyVersion(this.db);
    this.checkedAt = this.now();
    if (this.policy && latest === this.policy.version) return this.policy;
    const record = await activePolicy(this.db);
    const compiled = compileStored(record.version, record.source, record.teams);
    if (generation === this.generation) this.policy = compiled;
    return compiled;
  }

  private load(): Promise<CompiledPolicy> {
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading = activePolicy(this.db).then(
      (record) => {
        const compiled = compileStored(record.version, record.source, record.teams);
        // An invalidate() while loading means this result may be stale: only the newest load is kept.
        if (generation === this.generation) {
          this.policy = compiled;
          this.checkedAt = this.now();
        }
        if (this.loading === loading) this.loading = null;
        return compiled;
      },
      (err) => {
        if (this.loading === loading) this.loading = null;
        throw err;
      },
    );
    this.loading = loading;
    return loading;
  }

  private recheckInBackground(): void {
    if (this.checking) return;
    this.checking = true;
    this.checkedAt = this.now();
    this.refresh()
      .catch((err) => this.onError(err))
      .finally(() => {
        this.checking = false;
      });
  }
}
