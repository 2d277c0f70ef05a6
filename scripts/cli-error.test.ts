// scripts/cli-error.ts: whatever goes wrong, the CLI says it in one line that starts with "rein:".
import { expect, it } from "vitest";
import { ConfigError } from "@/server/config";
import { CliError, errorOutput } from "./cli-error";

it("prints a refusal, a bad setting and an unforeseen error each as one line", () => {
  expect(errorOutput(new CliError("No user with the email a@b.c"), false)).toBe("rein: No user with the email a@b.c");
  expect(errorOutput(new ConfigError(["DATABASE_URL: must be file: or postgresql://", "PORT: not a number"]), false)).toBe(
    "rein: the settings are not valid: DATABASE_URL: must be file: or postgresql://; PORT: not a number",
  );
  const unforeseen = errorOutput(new Error("Invalid `prisma.user.findUnique()` invocation:\n\n\nCan't reach database server"), false);
  expect(unforeseen).toBe("rein: Invalid `prisma.user.findUnique()` invocation: (unexpected; REIN_DEBUG=1 shows where it came from)");
  // fetch keeps its reason in the cause.
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:3000"), { code: "ECONNREFUSED" });
  expect(errorOutput(new TypeError("fetch failed", { cause: refused }), false)).toBe(
    "rein: fetch failed: ECONNREFUSED (unexpected; REIN_DEBUG=1 shows where it came from)",
  );
  expect(errorOutput("a thrown string", false)).toBe("rein: a thrown string (unexpected; REIN_DEBUG=1 shows where it came from)");
});

it("adds the stack of an unforeseen error when asked (REIN_DEBUG=1)", () => {
  const out = errorOutput(new Error("boom"), true);
  const [first, ...rest] = out.split("\n");
  expect(first).toBe("rein: boom (unexpected; REIN_DEBUG=1 shows where it came from)");
  expect(rest.join("\n")).toMatch(/^Error: boom\n\s+at /);
});
