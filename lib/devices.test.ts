import { describe, expect, it } from "vitest";
import { commandsWords, formatCountdown, pairCommand, runCommand, shellWord, systemWords } from "./devices";

describe("the commands Settings › Devices shows", () => {
  it("pairs with the agent served by this Rein, its address, the code and the folder", () => {
    expect(pairCommand("https://rein.example.org/", "K7PQ-M2XD", "~/rein-work")).toBe(
      "npx https://rein.example.org/api/devices/agent.tgz pair https://rein.example.org K7PQ-M2XD --folder ~/rein-work",
    );
    expect(pairCommand("http://localhost:3000", "ABCD-EFGH", "  ")).toContain("--folder ~/rein-work");
    expect(runCommand("http://localhost:3000")).toBe("npx http://localhost:3000/api/devices/agent.tgz run");
  });

  it.each([
    ["~/rein-work", "~/rein-work"],
    ["/srv/data", "/srv/data"],
    ["~", "~"],
    ["~/my work", "~/'my work'"],
    ["my work", "'my work'"],
    ["it's", `'it'\\''s'`],
    ["$(rm -rf ~)", "'$(rm -rf ~)'"],
    ["a;b", "'a;b'"],
    ["", "''"],
  ])("quotes the folder %j as %s", (folder, word) => {
    expect(shellWord(folder)).toBe(word);
  });
});

describe("words", () => {
  it.each([
    [600_000, "10:00"],
    [599_001, "10:00"],
    [65_000, "1:05"],
    [999, "0:01"],
    [0, "0:00"],
    [-5_000, "0:00"],
  ])("counts %d ms down as %s", (ms, words) => {
    expect(formatCountdown(ms)).toBe(words);
  });

  it("says a device's system and commands", () => {
    expect(systemWords({ os: "linux", arch: "x64", cpus: 8, memoryMb: 16_384 })).toBe("linux · x64 · 8 CPUs · 16 GiB");
    expect(systemWords({ os: "darwin", arch: "arm64", cpus: 1, memoryMb: 512 })).toBe("darwin · arm64 · 1 CPU · 512 MiB");
    expect(commandsWords({ commands: "none", confined: true })).toBe("none");
    expect(commandsWords({ commands: "any", confined: true })).toBe("a terminal, confined");
    expect(commandsWords({ commands: "any", confined: false })).toBe("a terminal, not confined");
  });
});
