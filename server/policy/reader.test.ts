import { afterAll, describe, expect, it } from "vitest";
import { BYPASS_CORPUS } from "@/test/attack/policy-bypass.corpus";
import { closeCommandReaders, readInThread } from "./reader";
import { analyzeShell } from "./shell";

afterAll(() => closeCommandReaders());

describe("a command line read in a thread", () => {
  it("reads as it does on the event loop, for every line of the bypass corpus", async () => {
    for (const { command } of BYPASS_CORPUS) {
      expect(await readInThread(command, 60_000), command).toEqual(analyzeShell(command));
    }
  });

  it("reads lines sent together, each with its own answer", async () => {
    const lines = ["git push origin main", "ls -la", "sh -c 'rm -rf /'", "$CMD x", "echo ok"];
    const read = await Promise.all(lines.map((l) => readInThread(l, 60_000)));
    expect(read).toEqual(lines.map((l) => analyzeShell(l)));
  });
});
