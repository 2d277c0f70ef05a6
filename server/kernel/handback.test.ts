// Take over and hand back at the kernel level: a paused run keeps its
// terminal pod, and a note given on resume reaches the agent before its next
// model call, after any pending tool results.
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryKernel, type MemoryKernel } from "@/test/helpers/kernel";
import { waitFor } from "@/test/helpers/wait";
import { WorkerPool } from "./pool";
import type { TerminalPod } from "@/server/compute";
import type { TerminalProvider } from "@/server/compute";

const WHO = { id: "user-ada", name: "Ada" };

/** A terminal provider that records attach/release and runs commands as the shell tool would. */
function fakeTerminals() {
  const log: string[] = [];
  const pods = new Map<string, TerminalPod>();
  const provider: TerminalProvider = {
    unavailable: () => null,
    async attach(runId, workspaceDir) {
      log.push(`attach ${runId}`);
      const pod = {
        id: `pod-${runId}`,
        sandbox: "none",
        workspaceDir,
        startedAt: Date.now(),
        alive: () => true,
        async exec(command: string) {
          log.push(`exec ${command}`);
          await new Promise((r) => setTimeout(r, command.startsWith("sleep") ? 300 : 1));
          return { exitCode: 0, output: `ran ${command}\n`, truncatedChars: 0 };
        },
      } as unknown as TerminalPod;
      pods.set(runId, pod);
      return { pod, fromPool: false, startMs: 1 };
    },
    get: (runId) => pods.get(runId),
    async release(runId) {
      log.push(`release ${runId}`);
      pods.delete(runId);
    },
  };
  return { provider, log };
}

describe("take over and hand back (kernel)", () => {
  let k: MemoryKernel;
  afterEach(() => k.cleanup());

  it("keeps the pod while paused and delivers the note after pending tool results", async () => {
    const terminals = fakeTerminals();
    k = createMemoryKernel();
    k.deps.terminals = terminals.provider;
    const id = k.addRun({
      scenario: {
        turns: [
          {
            text: "Two commands.",
            toolCalls: [
              { tool: "shell", args: { command: "sleep 1" } },
              { tool: "shell", args: { command: "echo two" } },
            ],
          },
          { text: "Done." },
        ],
      },
    });
    const pool = new WorkerPool(k.deps, { concurrency: 1 });
    pool.enqueue(id);
    await waitFor(async () => terminals.log.includes("exec sleep 1"), "the first command");
    expect(await pool.pause(id, WHO)).toEqual({ ok: true });
    await pool.whenIdle();
    expect((await k.store.getRun(id))?.status).toBe("paused");
    // Paused between the two calls of one turn, with its pod kept.
    expect(terminals.log).not.toContain(`release ${id}`);
    expect((await k.store.latestCheckpoint(id))?.state.pending).toHaveLength(1);

    expect(await pool.resume(id, WHO, "While you were paused, Ada ran: ls")).toEqual({ ok: true });
    await waitFor(async () => (await k.store.getRun(id))?.status === "succeeded", "the run to finish");
    expect(terminals.log.filter((l) => l === `attach ${id}`)).toHaveLength(1);
    expect(terminals.log.at(-1)).toBe(`release ${id}`);

    const state = (await k.store.latestCheckpoint(id))!.state;
    const roles = state.messages.map((m) => m.role);
    // user goal, assistant (2 calls), tool, tool, user note, assistant final
    expect(roles).toEqual(["user", "assistant", "tool", "tool", "user", "assistant"]);
    expect(state.messages[4]).toEqual({ role: "user", content: "While you were paused, Ada ran: ls" });
    expect(state.inbox).toBeUndefined();
    const notes = (await k.events(id)).filter((e) => e.type === "human.note");
    expect(notes.map((e) => e.payload)).toEqual([{ text: "While you were paused, Ada ran: ls", by: "user-ada", byName: "Ada" }]);
  });

  it("refuses a note for a run that is not paused", async () => {
    k = createMemoryKernel();
    const id = k.addRun();
    const pool = new WorkerPool(k.deps, { concurrency: 1 });
    expect(await pool.resume(id, WHO, "hello")).toEqual({ ok: false, reason: "Only a paused run can be resumed (this one is queued)" });
    expect((await k.events(id)).some((e) => e.type === "human.note")).toBe(false);
  });
});
