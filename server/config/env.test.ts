// The registry of environment variables reads well and says what the checks do.
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "./env";

describe("the registry of environment variables", () => {
  it("describes each variable in a sentence and says its default", () => {
    for (const v of ENV_VARIABLES) {
      expect(v.description, `${v.name}: a sentence for people`).toMatch(/^\S.*\.$/);
      expect(v.default, `${v.name}: the default as a person reads it`).not.toBe("");
      expect(v.name, "variable names are upper case").toMatch(/^[A-Z][A-Z0-9_]*$/);
      // The description is plain text in a Markdown table: a <word> would read as an HTML tag.
      expect(v.description, `${v.name}: no angle brackets in the description`).not.toMatch(/[<>]/);
    }
  });

  it("states the default its check applies, where the check has one", () => {
    for (const v of ENV_VARIABLES) {
      const unset = v.schema.safeParse(undefined);
      expect(unset.success, `${v.name}: an unset variable must be accepted`).toBe(true);
      if (unset.success && unset.data !== undefined) expect(v.default, `${v.name}: the stated default`).toBe(String(unset.data));
    }
  });

  it("keeps the server's variables with the server, the CLI's with the CLI", () => {
    const group = (name: string) => ENV_VARIABLES.find((v) => v.name === name)?.group;
    expect(group("REIN_DATA_DIR")).toBe("server");
    expect(group("REIN_URL")).toBe("cli");
    expect(group("REIN_TOKEN")).toBe("cli");
    expect(group("BENCH_N")).toBe("tests");
    expect(group("REIN_FS_ROOT")).toBe("internal");
  });
});
