// The last check before the event log and the kernel's log lines
// (docs/secrets.md#redaction-where-the-value-is-hidden): every secret value the
// server knows is redacted from events as they are appended and from a failed
// run's reason. Tool output is redacted at the source (the ToolRunner); this
// catches what slips past it, such as a provider's error message quoting the
// key it was sent. Text people write (a goal, a message to the agent, a note on
// resume) may hold any secret, so it is checked against every secret's value,
// and a note's copy in the checkpoint's inbox too. Other checkpoint content
// came through the ToolRunner or the model, which never saw a value.
import type { KernelDeps } from "./loop";
import type { NewRunEvent, RunEventType } from "./events";
import type { RunState } from "./states";
import type { RunStore, StepCommit, TransitionPatch } from "./store";

export interface EventRedaction {
  /** Makes sure the known values are current (provider keys change); cheap when they are. */
  prepare(): Promise<void>;
  /** Makes sure every secret's value is known (before text a person wrote). */
  prepareAll(): Promise<void>;
  redact<T>(value: T): T;
  text(text: string): string;
}

/** Events that carry what a person wrote. */
const PEOPLES_TEXT = new Set<RunEventType>(["run.created", "user.message", "human.note"]);

export class RedactingRunStore implements RunStore {
  constructor(
    private readonly inner: RunStore,
    private readonly redaction: EventRedaction,
  ) {}

  getRun(runId: string) {
    return this.inner.getRun(runId);
  }

  runIdsIn(states: RunState[], reasonPrefix?: string) {
    return this.inner.runIdsIn(states, reasonPrefix);
  }

  async transition(runId: string, from: RunState[], to: RunState, patch?: TransitionPatch, actor?: string) {
    if (patch) await this.redaction.prepare();
    return this.inner.transition(runId, from, to, patch && this.redaction.redact(patch), actor);
  }

  async appendEvents(runId: string, events: NewRunEvent[]) {
    await this.prepareFor(events);
    return this.inner.appendEvents(
      runId,
      events.map((e) => this.clean(e)),
    );
  }

  async appendEventsSoon(runId: string, events: NewRunEvent[]) {
    await this.prepareFor(events);
    return this.inner.appendEventsSoon(
      runId,
      events.map((e) => this.clean(e)),
    );
  }

  async commitStep(runId: string, step: StepCommit) {
    await this.prepareFor(step.events);
    const { inbox } = step.checkpoint;
    const checkpoint = inbox?.length ? { ...step.checkpoint, inbox: inbox.map((text) => this.redaction.text(text)) } : step.checkpoint;
    return this.inner.commitStep(runId, { ...step, checkpoint, events: step.events.map((e) => this.clean(e)) });
  }

  private prepareFor(events: NewRunEvent[]) {
    return events.some((e) => PEOPLES_TEXT.has(e.type)) ? this.redaction.prepareAll() : this.redaction.prepare();
  }

  latestCheckpoint(runId: string) {
    return this.inner.latestCheckpoint(runId);
  }

  listEvents(runId: string, after: number, limit: number) {
    return this.inner.listEvents(runId, after, limit);
  }

  eventsOfType(runId: string, type: RunEventType, after: number) {
    return this.inner.eventsOfType(runId, type, after);
  }

  private clean(e: NewRunEvent): NewRunEvent {
    return { ...e, payload: this.redaction.redact(e.payload) };
  }
}

/** The kernel's log with known secret values redacted from messages and errors. */
export function redactingLog(log: KernelDeps["log"], redaction: EventRedaction): KernelDeps["log"] {
  return {
    info: (m) => log.info(redaction.text(m)),
    error(m, err) {
      if (!(err instanceof Error)) return log.error(redaction.text(m), typeof err === "string" ? redaction.text(err) : err);
      const copy = new Error(redaction.text(err.message));
      copy.name = err.name;
      copy.stack = redaction.text(err.stack ?? "");
      log.error(redaction.text(m), copy);
    },
  };
}
