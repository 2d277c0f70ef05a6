// The bench helper runs end to end at a tiny size (figures are printed by
// `npm run bench:improve`; nothing here asserts on time).
import { describe, expect, it } from "vitest";
import { probeSandbox } from "@/server/compute";
import { benchWorktrees } from "./bench";

describe("benchWorktrees", () => {
  it("measures every figure on a small repository", async () => {
    const r = await benchWorktrees({ rounds: 1, largeFiles: 120 });
    expect(r.demo.files).toBe(4);
    expect(r.large.files).toBe(120);
    for (const f of [r.demo, r.large]) {
      expect(f.createP50Ms).toBeGreaterThan(0);
      expect(f.removeP50Ms).toBeGreaterThan(0);
    }
    if (probeSandbox().ok)
      expect(r.checks).toMatchObject({
        sandbox: "bubblewrap",
        sandboxedP50Ms: expect.any(Number),
        directP50Ms: expect.any(Number),
        ratio: expect.any(Number),
      });
    else expect(r.checks).toMatchObject({ sandbox: "unavailable" });
  });
});
