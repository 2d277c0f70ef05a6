// The tier state machine: every precondition refuses an upgrade on its own,
// with its reason code; consent is asked, honoured and refused.
import { describe, expect, it } from "vitest";
import { complexityOf, decideUpgrade, estimatedCostUsd, type UpgradeFacts } from "./machine";
import { defaultTierSettings } from "./settings";
import type { TierSettings } from "./types";

/** Facts under which T1 -> T2 is granted once an operator consents. */
function facts(overrides: Partial<UpgradeFacts> = {}, settings: (s: TierSettings) => void = () => {}): UpgradeFacts {
  const s = defaultTierSettings();
  settings(s);
  return {
    from: "T1",
    to: "T2",
    settings: s,
    unavailable: null,
    complexity: { score: 0.7, source: "agent" },
    budget: { ok: true },
    consent: null,
    ...overrides,
  };
}

const approved = { state: "APPROVED" as const, requestId: "r1", by: "u1", byName: "Olga Operator" };

describe("decideUpgrade", () => {
  it("asks for the tier's consent role when everything else allows the move", () => {
    expect(decideUpgrade(facts())).toEqual({ kind: "needs_consent", role: "operator" });
  });

  it("grants the move once the person approved, naming them", () => {
    expect(decideUpgrade(facts({ consent: approved }))).toEqual({ kind: "granted", consentBy: "Olga Operator" });
  });

  it("grants without asking when the tier needs nobody's consent (the rules grant it)", () => {
    expect(decideUpgrade(facts({}, (s) => (s.T2.consentRole = null)))).toEqual({ kind: "granted" });
  });

  it("asks the role the settings name", () => {
    expect(decideUpgrade(facts({}, (s) => (s.T2.consentRole = "admin")))).toEqual({ kind: "needs_consent", role: "admin" });
  });

  it("CONSENT_REJECTED when the person rejected, with who and their comment", () => {
    const d = decideUpgrade(facts({ consent: { state: "REJECTED", requestId: "r1", byName: "Olga Operator", comment: "not today" } }));
    expect(d).toEqual({
      kind: "refused",
      code: "CONSENT_REJECTED",
      message: "Olga Operator did not consent to T2 (desktop): not today",
      reviewer: { by: "Olga Operator", verb: "declined", comment: "not today" },
    });
  });

  it("CONSENT_REJECTED when nobody answered before the request expired, or it was canceled", () => {
    expect(decideUpgrade(facts({ consent: { state: "EXPIRED", requestId: "r1" } }))).toMatchObject({
      code: "CONSENT_REJECTED",
      message: expect.stringContaining("expired"),
    });
    expect(decideUpgrade(facts({ consent: { state: "CANCELED", requestId: "r1" } }))).toMatchObject({
      code: "CONSENT_REJECTED",
      message: expect.stringContaining("canceled"),
    });
    // Nobody decided: no reviewer, so a run that stops there failed rather than was stopped by a person.
    expect(decideUpgrade(facts({ consent: { state: "EXPIRED", requestId: "r1" } }))).not.toHaveProperty("reviewer");
  });

  it("NOT_AN_UPGRADE for the same tier or a lower one", () => {
    expect(decideUpgrade(facts({ from: "T2", to: "T2" }))).toMatchObject({
      code: "NOT_AN_UPGRADE",
      message: "The run is already on T2 (desktop)",
    });
    expect(decideUpgrade(facts({ from: "T2", to: "T1" }))).toMatchObject({
      code: "NOT_AN_UPGRADE",
      message: expect.stringContaining("only moves up"),
    });
  });

  it("NO_DEVICE for T4 when none of the person's devices is online, in the words given", () => {
    const reason = "No device of Ada is online for team Core; pair one in Settings › Devices and start it with rein-device run";
    const f = facts({ to: "T4", from: "T1", complexity: { score: 1, source: "run" }, consent: approved }, (s) => (s.T4.enabled = true));
    expect(decideUpgrade({ ...f, device: { ok: false, reason } })).toEqual({ kind: "refused", code: "NO_DEVICE", message: reason });
    expect(decideUpgrade({ ...f, device: { ok: true, name: "ada-laptop" } })).toMatchObject({ kind: "granted" });
  });

  it("NO_MACHINE for T3 when no machine is ready for the run's team, in the words given", () => {
    const reason = "No machine is ready for team Core; an admin adds one in Settings › Machines";
    const f = facts({ to: "T3", from: "T1", complexity: { score: 1, source: "run" }, consent: approved }, (s) => (s.T3.enabled = true));
    expect(decideUpgrade({ ...f, machine: { ok: false, reason } })).toEqual({ kind: "refused", code: "NO_MACHINE", message: reason });
    expect(decideUpgrade({ ...f, machine: { ok: true, name: "build-box" } })).toMatchObject({ kind: "granted" });
  });

  it("TIER_DISABLED when an admin turned the tier off", () => {
    expect(decideUpgrade(facts({ consent: approved }, (s) => (s.T2.enabled = false)))).toMatchObject({ code: "TIER_DISABLED" });
  });

  it("TIER_UNAVAILABLE when the server cannot provide it now (no Xvfb), with the reason", () => {
    const d = decideUpgrade(facts({ unavailable: "Xvfb is not installed", consent: approved }));
    expect(d).toEqual({
      kind: "refused",
      code: "TIER_UNAVAILABLE",
      message: "T2 (desktop) is not available on this server: Xvfb is not installed",
    });
  });

  it("COMPLEXITY_BELOW_THRESHOLD under the tier's threshold, saying where the score came from; the threshold itself is enough", () => {
    const d = decideUpgrade(facts({ complexity: { score: 0.5, source: "default" }, consent: approved }));
    expect(d).toMatchObject({ code: "COMPLEXITY_BELOW_THRESHOLD" });
    expect((d as { message: string }).message).toBe(
      "The task's complexity score 0.50 (the default, as neither the run nor its agent gives one) is below T2 (desktop)'s threshold of 0.55",
    );
    expect(decideUpgrade(facts({ complexity: { score: 0.55, source: "run" }, consent: approved }))).toMatchObject({ kind: "granted" });
    expect(
      decideUpgrade(facts({ complexity: { score: 0.5, source: "run" }, consent: approved }, (s) => (s.T2.threshold = 0.4))),
    ).toMatchObject({ kind: "granted" });
  });

  it("BUDGET_EXCEEDED when the budget does not cover the tier, with the budget's reason, before anyone is asked", () => {
    const d = decideUpgrade(facts({ budget: { ok: false, reason: "The run has spent $0.0100 of its $0.0100 budget" } }));
    expect(d).toEqual({ kind: "refused", code: "BUDGET_EXCEEDED", message: "The run has spent $0.0100 of its $0.0100 budget" });
  });

  it("T0 -> T1 has its own threshold and needs no consent by default", () => {
    expect(decideUpgrade(facts({ from: "T0", to: "T1", complexity: { score: 0.3, source: "agent" } }))).toEqual({ kind: "granted" });
    expect(decideUpgrade(facts({ from: "T0", to: "T1", complexity: { score: 0.29, source: "agent" } }))).toMatchObject({
      code: "COMPLEXITY_BELOW_THRESHOLD",
    });
  });
});

describe("complexityOf", () => {
  it("takes the run's score first, then the agent spec's, then 0.5; out-of-range values are ignored", () => {
    expect(complexityOf(0.2, { complexity: 0.9 })).toEqual({ score: 0.2, source: "run" });
    expect(complexityOf(null, { complexity: 0.9 })).toEqual({ score: 0.9, source: "agent" });
    expect(complexityOf(undefined, {})).toEqual({ score: 0.5, source: "default" });
    expect(complexityOf(3, { complexity: "high" })).toEqual({ score: 0.5, source: "default" });
  });
});

describe("estimatedCostUsd", () => {
  it("is the hourly price for at least the idle timeout, an hour when the tier has none", () => {
    expect(estimatedCostUsd({ costPerHourUsd: 0.06, idleTimeoutMin: 10 })).toBeCloseTo(0.01, 10);
    expect(estimatedCostUsd({ costPerHourUsd: 0.06, idleTimeoutMin: null })).toBeCloseTo(0.06, 10);
    expect(estimatedCostUsd({ costPerHourUsd: 0, idleTimeoutMin: 10 })).toBe(0);
  });
});
