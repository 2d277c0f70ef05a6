// The last check before the event log
// (docs/secrets.md#redaction-where-the-value-is-hidden): a known secret value
// in an appended event, a step's events or a failed run's reason is redacted;
// the kernel's log lines too.
import { describe, expect, it } from "vitest";
import { SecretRedactor } from "@/server/secrets";
import { MemoryRunStore } from "./memory-store";
import { RedactingRunStore, redactingLog, type EventRedaction } from "./redaction";
import { event } from "./events";
import { initialState } from "./checkpoint";

const KEY = { name: "provider/openai/api-key", value: "sk-live-0123456789abcdefXYZ" };

/** A secret no run was given: only prepareAll (before what a person wrote) learns it. */
const PASTED = { name: "DEPLOY_TOKEN", value: "pasted-value-0b1c2d" };

function setup() {
  const redactor = new SecretRedactor();
  let prepared = 0;
  const redaction: EventRedaction = {
    async prepare() {
      prepared++;
      redactor.remember([KEY]);
    },
    async prepareAll() {
      prepared++;
      redactor.remember([KEY, PASTED]);
    },
    redact: (v) => redactor.value(v),
    text: (t) => redactor.text(t),
  };
  const inner = new MemoryRunStore();
  inner.addRun({
    id: "r1",
    goal: "g",
    agentName: "a",
    agentVersion: 1,
    status: "queued",
    model: "m",
    scenario: null,
    maxSteps: 5,
    createdById: "u",
    teamId: null,
  });
  return { store: new RedactingRunStore(inner, redaction), prepared: () => prepared };
}

describe("RedactingRunStore", () => {
  it("redacts appended events, a step's events and a transition's reason, learning values first", async () => {
    const { store, prepared } = setup();
    await store.appendEvents("r1", [
      event("model.error", { step: 1, agent: "a", model: "m", error: `401: bad key ${KEY.value}`, durationMs: 1 }),
    ]);
    expect(prepared()).toBe(1);
    await store.transition("r1", ["queued"], "running");
    await store.commitStep("r1", {
      events: [event("run.resumed", { fromCheckpoint: 1, step: 1, reason: `key ${KEY.value}` })],
      checkpoint: initialState("a", "g"),
      seq: 1,
    });
    await store.transition("r1", ["running"], "failed", {
      reason: `failed with ${KEY.value}`,
      error: { code: "MODEL_ERROR", message: `key ${KEY.value}` },
    });
    const all = JSON.stringify(await store.listEvents("r1", 0, 100));
    expect(all).not.toContain(KEY.value);
    expect(all.match(/\[secret:provider\/openai\/api-key\]/g)).toHaveLength(4);
    expect(await store.latestCheckpoint("r1")).not.toBeNull();
  });

  it("checks what a person wrote against every secret, in the event and in the checkpoint's inbox", async () => {
    const { store } = setup();
    await store.appendEvents("r1", [{ type: "user.message", payload: { text: `use ${PASTED.value}`, by: "u", byName: "Ada" } }]);
    const cp = initialState("a", "g");
    await store.commitStep("r1", {
      events: [{ type: "human.note", payload: { text: `I typed ${PASTED.value}`, by: "u", byName: "Ada" } }],
      checkpoint: { ...cp, inbox: [`I typed ${PASTED.value}`] },
      seq: 1,
    });
    const events = await store.listEvents("r1", 0, 10);
    expect(JSON.stringify(events)).not.toContain(PASTED.value);
    expect(JSON.stringify(events)).toContain("[secret:DEPLOY_TOKEN]");
    expect((await store.latestCheckpoint("r1"))!.state.inbox).toEqual(["I typed [secret:DEPLOY_TOKEN]"]);
  });

  it("the kernel's log has values redacted from messages and errors", () => {
    const redactor = new SecretRedactor();
    redactor.remember([KEY]);
    const lines: string[] = [];
    const log = redactingLog(
      { info: (m) => lines.push(m), error: (m, e) => lines.push(`${m} ${(e as Error).message} ${(e as Error).stack}`) },
      { prepare: async () => {}, prepareAll: async () => {}, redact: (v) => redactor.value(v), text: (t) => redactor.text(t) },
    );
    log.info(`using ${KEY.value}`);
    log.error("run failed", new Error(`provider said ${KEY.value}`));
    expect(lines.join("\n")).not.toContain(KEY.value);
    expect(lines[1]).toContain("provider said [secret:provider/openai/api-key]");
  });
});
