// The Settings › Tiers form: saved settings round-trip through the draft,
// each bad field gets its own message, T0 cannot be switched off, and the
// server's issues land under their fields.
import { describe, expect, it } from "vitest";
import { draftEstimate, draftOf, estimateUsd, parseDraft, serverErrors, tierLabel, type TierSettingsValue } from "./tier-draft";

const SAVED: TierSettingsValue = {
  T0: { enabled: true, poolSize: 0, idleTimeoutMin: null, costPerHourUsd: 0, threshold: 0, consentRole: null },
  T1: { enabled: true, poolSize: 2, idleTimeoutMin: null, costPerHourUsd: 0.01, threshold: 0.3, consentRole: null },
  T2: { enabled: true, poolSize: 1, idleTimeoutMin: 10, costPerHourUsd: 0.05, threshold: 0.55, consentRole: "operator" },
  T3: { enabled: false, poolSize: 0, idleTimeoutMin: 30, costPerHourUsd: 0.5, threshold: 0.7, consentRole: "admin" },
  T4: { enabled: false, poolSize: 0, idleTimeoutMin: 30, costPerHourUsd: 0, threshold: 0.88, consentRole: "admin" },
};

describe("tier draft", () => {
  it("round-trips saved settings: blank idle timeout is never, blank consent is nobody", () => {
    const draft = draftOf(SAVED);
    expect(draft.T1.idleTimeoutMin).toBe("");
    expect(draft.T1.consentRole).toBe("");
    expect(parseDraft(draft)).toEqual({ ok: true, value: SAVED });
  });

  it("gives each bad field its own message", () => {
    const draft = draftOf(SAVED);
    Object.assign(draft.T2, { poolSize: "1.5", idleTimeoutMin: "0", costPerHourUsd: "cheap", threshold: "1.2" });
    draft.T1.poolSize = "99";
    draft.T1.costPerHourUsd = "-1";
    const parsed = parseDraft(draft);
    expect(parsed).toEqual({
      ok: false,
      errors: {
        "T1.poolSize": "is from 0 to 16",
        "T1.costPerHourUsd": "cannot be negative",
        "T2.poolSize": "must be a whole number",
        "T2.idleTimeoutMin": "is from 1 minute to a week (10080)",
        "T2.costPerHourUsd": "must be an amount in USD, e.g. 0.05",
        "T2.threshold": "is from 0 to 1",
      },
    });
  });

  it("keeps T0 on, and pools only on T1 and T2, whatever the form says; T3 and T4 may be turned on", () => {
    const draft = draftOf(SAVED);
    draft.T0.enabled = false;
    draft.T3.enabled = true;
    draft.T3.poolSize = "5";
    draft.T4.enabled = true;
    const parsed = parseDraft(draft);
    expect(parsed.ok && [parsed.value.T0.enabled, parsed.value.T3.enabled, parsed.value.T3.poolSize, parsed.value.T4.enabled]).toEqual([
      true,
      true,
      0,
      true,
    ]);
  });

  it("accepts a dollar sign and a bare decimal point", () => {
    const draft = draftOf(SAVED);
    draft.T2.costPerHourUsd = "$.25";
    const parsed = parseDraft(draft);
    expect(parsed.ok && parsed.value.T2.costPerHourUsd).toBe(0.25);
  });

  it("puts the server's issues under their fields and the rest in one line", () => {
    expect(
      serverErrors(
        [
          { path: "T2.threshold", message: "is at most 1" },
          { path: "T5", message: "unknown" },
        ],
        "bad",
      ),
    ).toEqual({
      errors: { "T2.threshold": "is at most 1" },
      other: "T5: unknown",
    });
    expect(serverErrors(undefined, "This needs the admin role")).toEqual({ errors: {}, other: "This needs the admin role" });
  });

  it("labels tiers and estimates a stay", () => {
    expect(tierLabel("T2")).toBe("T2 · desktop");
    expect(tierLabel("X9")).toBe("X9");
    expect(estimateUsd(0.06, 10)).toBeCloseTo(0.01, 10);
    expect(estimateUsd(0.06, null)).toBeCloseTo(0.06, 10);
  });

  it.each([
    ["-4", "", "a negative price"],
    ["abc", "", "a price that is not a number"],
    ["NaN", "", "NaN"],
    ["Infinity", "", "Infinity"],
    ["1e3", "", "an exponent"],
    ["5000", "", "a price over 1000 an hour"],
    ["0.06", "-5", "a negative idle timeout"],
    ["0.06", "1.5", "a fraction of a minute"],
    ["0.06", "99999999", "an idle timeout over a week"],
  ])("estimates nothing from %j per hour and idle %j (%s)", (costPerHourUsd, idleTimeoutMin) => {
    expect(draftEstimate({ costPerHourUsd, idleTimeoutMin })).toBeNull();
  });

  it("estimates from possible values as typed", () => {
    expect(draftEstimate({ costPerHourUsd: "$0.06", idleTimeoutMin: " 10 " })).toBeCloseTo(0.01, 10);
    expect(draftEstimate({ costPerHourUsd: "0", idleTimeoutMin: "" })).toBe(0);
  });
});
