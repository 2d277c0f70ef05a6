// Change requests' pure core: the state table walked exhaustively, every
// reason a merge is refused, protected paths (with hostile paths), and the
// risk groups a reviewer sees.
import { describe, expect, it } from "vitest";
import {
  CHANGE_STATES,
  DEFAULT_PROTECTED_PATHS,
  ProtectedPathError,
  ProtectedPaths,
  canChangeGo,
  canonicalPath,
  changeSourcesOf,
  groupByRisk,
  mergeRefusal,
  type ChangeState,
  type MergeFacts,
} from "./index";

const ALLOWED: Array<[ChangeState, ChangeState]> = [
  ["draft", "checks_running"],
  ["draft", "rejected"],
  ["checks_running", "checks_failed"],
  ["checks_running", "awaiting_review"],
  ["checks_failed", "checks_running"],
  ["checks_failed", "rejected"],
  ["awaiting_review", "merged"],
  ["awaiting_review", "rejected"],
  ["awaiting_review", "checks_running"],
  ["merged", "reverted"],
];

describe("change-request transitions", () => {
  for (const from of CHANGE_STATES)
    for (const to of CHANGE_STATES) {
      const allowed = ALLOWED.some(([a, b]) => a === from && b === to);
      it(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => expect(canChangeGo(from, to)).toBe(allowed));
    }

  it("merges only from awaiting_review, and reverts only what merged", () => {
    expect(changeSourcesOf("merged")).toEqual(["awaiting_review"]);
    expect(changeSourcesOf("reverted")).toEqual(["merged"]);
  });
});

describe("what a merge needs", () => {
  const ready: MergeFacts = {
    state: "awaiting_review",
    checksPassed: true,
    evalPassed: null,
    approval: { state: "APPROVED", decidedById: "approver" },
    authorLaunchedById: "author",
    appliesOnTarget: true,
  };

  it("merges when everything holds", () => {
    expect(mergeRefusal(ready)).toBeNull();
    expect(mergeRefusal({ ...ready, evalPassed: true })).toBeNull();
  });

  it.each([
    [{ state: "checks_failed" as const }, /checks failed cannot be merged/],
    [{ state: "merged" as const }, /merged cannot be merged/],
    [{ checksPassed: false }, /checks have not passed/],
    [{ evalPassed: false }, /eval gate failed/],
    [{ approval: null }, /No approver/],
    [{ approval: { state: "PENDING", decidedById: null } }, /No approver/],
    [{ approval: { state: "REJECTED", decidedById: "approver" } }, /No approver/],
    [{ approval: { state: "APPROVED", decidedById: "author" } }, /another approver must/],
    [{ appliesOnTarget: false }, /no longer applies/],
  ])("refuses %o", (patch, why) => {
    expect(mergeRefusal({ ...ready, ...patch })).toMatch(why);
  });
});

describe("protected paths", () => {
  const rein = new ProtectedPaths(DEFAULT_PROTECTED_PATHS);

  it("protects Rein's policy, people, secrets, human requests, evals, self-improvement and CI", () => {
    for (const p of [
      "server/policy/evaluate.ts",
      "server/hitl/broker.ts",
      "server/identity/login.ts",
      "server/secrets/keyring.ts",
      "server/evals/gate.ts",
      "server/improve/cycles/service.ts",
      ".ci/run",
      "test/attack/x.test.ts",
    ]) {
      expect(rein.match(p), p).not.toBeNull();
    }
    for (const p of ["server/tools/runner.ts", "components/run/timeline.tsx", "docs/improvements.md", "server/policyish.ts"])
      expect(rein.match(p), p).toBeNull();
  });

  it("protects the folders a protected path sits in: a file or a symlink there stands in for them", () => {
    for (const p of [".ci", ".CI", "server", "server/policy", "test/attack", ".github"]) expect(rein.match(p), p).not.toBeNull();
    const own = new ProtectedPaths(["infra/*/secrets/**", "**/keys/**", "*.pem"]);
    for (const p of ["infra", "infra/prod", "infra/prod/secrets"]) expect(own.match(p), p).toBe("infra/*/secrets/**");
    for (const p of ["infrastructure", "infra/prod/secretsx", "a", "a/keysx", "pem"]) expect(own.match(p), p).toBeNull();
  });

  it("sees through spellings an agent might try", () => {
    for (const p of [
      "./server/policy/evaluate.ts",
      "server//policy/evaluate.ts",
      "Server/Policy/evaluate.ts",
      "server\\policy\\evaluate.ts",
      "docs/../server/policy/x.ts",
      "/etc/passwd",
      "a\0b",
      "",
    ]) {
      expect(rein.match(p), JSON.stringify(p)).not.toBeNull();
    }
    expect(canonicalPath("./a//b/./c")).toBe("a/b/c");
    expect(canonicalPath("../a")).toBeNull();
  });

  it("refuses a change touching one, naming each path and its rule", () => {
    const err = (() => {
      try {
        rein.check(["README.md", "server/policy/gate.ts", ".ci/run"]);
      } catch (e) {
        return e as ProtectedPathError;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(ProtectedPathError);
    expect(err!.message).toBe("The change touches protected paths: server/policy/gate.ts (server/policy/**), .ci/run (.ci/**)");
    expect(() => rein.check(["README.md", "src/app.js"])).not.toThrow();
  });

  it("takes a repository's own list, folders and single stars", () => {
    const own = new ProtectedPaths(["config/", "*.pem", "src/secrets/*.json"]);
    expect(own.match("config/prod.yml")).toBe("config/**");
    expect(own.match("key.pem")).toBe("*.pem");
    expect(own.match("deep/key.pem")).toBeNull();
    expect(own.match("src/secrets/a.json")).toBe("src/secrets/*.json");
    expect(own.match("src/secrets/x/a.json")).toBeNull();
  });

  it("refuses a list it cannot use, and runs hostile globs in linear time", () => {
    expect(() => new ProtectedPaths([""])).toThrow(ProtectedPathError);
    expect(() => new ProtectedPaths(Array(201).fill("a"))).toThrow(/at most 200/);
    const nested = new ProtectedPaths(["**/**/**/**/**/**/**/**/x"]);
    expect(nested.match("a/".repeat(2000) + "y")).toBeNull();
  });
});

describe("risk groups", () => {
  it("puts what runs the system first, then code, then tests and docs", () => {
    expect(
      groupByRisk([
        "src/app.js",
        "package.json",
        "docs/a.md",
        "test/app.test.js",
        "scripts/build.sh",
        "prisma/schema.prisma",
        "components/x.tsx",
      ]),
    ).toEqual({
      high: ["package.json", "prisma/schema.prisma", "scripts/build.sh"],
      medium: ["components/x.tsx", "src/app.js"],
      low: ["docs/a.md", "test/app.test.js"],
    });
  });
});
