// One run of one runtime tool: a fresh QuickJS instance, runtime and context
// with the run's limits, the prelude, the tool's source, run(args, rein), the
// promise it may return, and its result as JSON. Every handle it makes is
// disposed in close(); an instance the tool broke is dropped instead.
//
// It runs in a sandbox worker thread (pool.ts): QuickJS calls the interrupt
// handler as it executes, and the handler stops it at the deadline; the pool
// terminates the worker when a native loop QuickJS never interrupts runs on.
// Host calls (readFile) are promises inside the tool.
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { newEngine, type Engine } from "./engine";
import { classify, stackError, timeoutError, type GuestError, type Phase } from "./errors";
import { MAX_LOG_BYTES, MAX_READ_CALLS, formatBytes, maxReadBytes } from "./limits";
import { TOOL_FILE, installPrelude, type Prelude } from "./prelude";
import type { SandboxError, SandboxHost, SandboxLimits } from "./types";

export type Step<T> = { ok: true; value: T } | { ok: false; error: SandboxError };

const fail = (error: SandboxError): { ok: false; error: SandboxError } => ({ ok: false, error });

/** A host error's message, never its stack, and not a novel. */
function hostMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : typeof err === "string" ? err : "the host failed";
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** The host side threw out of QuickJS: the instance cannot be trusted any more. */
function brokenError(err: unknown, limits: SandboxLimits): SandboxError {
  if (err instanceof RangeError && /call stack/i.test(err.message)) return stackError(limits);
  const name = err instanceof Error ? err.name : "Error";
  return { code: "HOST_ERROR", message: `the sandbox failed unexpectedly (${name}: ${hostMessage(err)})` };
}

export class Session {
  private deadline = Infinity;
  private timedOut = false;
  private broken: SandboxError | null = null;
  private closed = false;
  private readonly denied: string[] = [];
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly hostErrors: Array<{ handle: QuickJSHandle; call: string; message: string }> = [];
  private readsOut = 0;
  private readCalls = 0;
  private wake: (() => void) | null = null;
  private readonly logs: string[] = [];
  private logBytes = 0;
  private prelude!: Prelude;

  private constructor(
    private readonly engine: Engine,
    private readonly rt: QuickJSRuntime,
    private readonly ctx: QuickJSContext,
    private readonly limits: SandboxLimits,
  ) {}

  static async open(limits: SandboxLimits, host: SandboxHost): Promise<Step<Session>> {
    let engine: Engine;
    try {
      engine = await newEngine();
    } catch (err) {
      return fail({ code: "HOST_ERROR", message: `the sandbox could not start: ${hostMessage(err)}` });
    }
    const rt = engine.module.newRuntime();
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(limits.stackBytes);
    const ctx = rt.newContext();
    const session = new Session(engine, rt, ctx, limits);
    rt.setInterruptHandler(() => session.shouldInterrupt());
    try {
      session.prelude = installPrelude(ctx, {
        log: (line) => session.log(line),
        read: host.readFile ? (path) => session.read(host.readFile!, path) : undefined,
        denied: (member) => void (session.denied.includes(member) || session.denied.push(member)),
      });
    } catch (err) {
      // Only a memory limit too small for the prelude gets here; the instance is dropped.
      session.closed = true;
      const oom = err instanceof Error && /out of memory/.test(err.message);
      return fail(
        oom
          ? { code: "OUT_OF_MEMORY", message: `${formatBytes(limits.memoryBytes)} is too little memory for the sandbox to start` }
          : brokenError(err, limits),
      );
    }
    return { ok: true, value: session };
  }

  get capturedLogs(): string[] | undefined {
    return this.logs.length > 0 ? [...this.logs] : undefined;
  }

  /** The tool's wall clock starts here: setting the sandbox up is Rein's time, not the tool's. */
  startClock(): void {
    this.deadline = performance.now() + this.limits.timeoutMs;
  }

  private shouldInterrupt(): boolean {
    if (performance.now() < this.deadline) return false;
    this.timedOut = true;
    return true;
  }

  /** Calls into QuickJS; a host exception out of it (V8's stack, an abort) breaks the instance. */
  private guard<T>(fn: () => T): Step<T> {
    if (this.broken) return fail(this.broken);
    try {
      return { ok: true, value: fn() };
    } catch (err) {
      this.broken = brokenError(err, this.limits);
      return fail(this.broken);
    }
  }

  /** Turns a value the tool threw (the handle is consumed) into the run's error. */
  private failure(phase: Phase, thrown: QuickJSHandle): { ok: false; error: SandboxError } {
    const facts = this.guard(() => {
      const hostError = this.hostErrors.find((h) => this.ctx.sameValue(h.handle, thrown));
      const described = this.ctx.callFunction(this.prelude.describe, this.ctx.undefined, thrown);
      let guest: GuestError = { name: null, message: "(a value that could not be described)", line: null, column: null };
      if (described.error) described.error.dispose();
      else {
        if (this.ctx.typeof(described.value) === "string") guest = JSON.parse(this.ctx.getString(described.value)) as GuestError;
        described.value.dispose();
      }
      return { hostError, guest };
    });
    if (thrown.alive && !this.broken) thrown.dispose();
    if (!facts.ok) return this.timedOut ? fail(timeoutError(this.limits)) : facts;
    return fail(classify({ phase, limits: this.limits, timedOut: this.timedOut, denied: this.denied, ...facts.value }));
  }

  /** Evaluates the tool's source and finds its run function. */
  load(source: string): Step<QuickJSHandle> {
    const evaluated = this.guard(() => this.ctx.evalCode(source, TOOL_FILE, { type: "global" }));
    if (!evaluated.ok) return evaluated;
    if (evaluated.value.error) return this.failure("load", evaluated.value.error);
    evaluated.value.value.dispose();
    // `run` may be a function declaration or a top-level const/let: look it up by name.
    // (Both evaluations are scripts: QuickJS would otherwise take a source with `export` for a module.)
    const found = this.guard(() => this.ctx.evalCode("typeof run === 'undefined' ? undefined : run", "rein-lookup.js", { type: "global" }));
    if (!found.ok) return found;
    if (found.value.error) return this.failure("load", found.value.error);
    const run = found.value.value;
    const kind = this.ctx.typeof(run);
    if (kind === "function") return { ok: true, value: run };
    run.dispose();
    const message =
      kind === "undefined"
        ? "the source does not define a function run(args, rein)"
        : `run is a ${kind}, not a function: define function run(args, rein)`;
    return fail({ code: "BAD_SOURCE", message });
  }

  /** Calls run(args, rein) and waits for what it returns; the handle is consumed. */
  async call(run: QuickJSHandle, argsJson: string): Promise<Step<QuickJSHandle>> {
    const args = this.guard(() => {
      const json = this.ctx.newString(argsJson);
      const parsed = this.ctx.callFunction(this.prelude.parse, this.ctx.undefined, json);
      json.dispose();
      return parsed;
    });
    if (!args.ok) return args;
    if (args.value.error) {
      run.dispose();
      return this.failure("run", args.value.error);
    }
    const argsHandle = args.value.value;
    const called = this.guard(() => this.ctx.callFunction(run, this.ctx.undefined, argsHandle, this.prelude.rein));
    if (!called.ok) return called;
    argsHandle.dispose();
    run.dispose();
    if (called.value.error) return this.failure("run", called.value.error);
    return this.settle(called.value.value);
  }

  /** A value, or a promise run until it settles: jobs run, host calls are awaited, the deadline holds throughout. */
  private async settle(value: QuickJSHandle): Promise<Step<QuickJSHandle>> {
    for (;;) {
      const jobs = this.guard(() => this.rt.executePendingJobs());
      if (!jobs.ok) return jobs;
      if (jobs.value.error) {
        value.dispose();
        return this.failure("run", jobs.value.error);
      }
      if (this.timedOut) {
        value.dispose();
        return fail(timeoutError(this.limits));
      }
      const state = this.guard(() => this.ctx.getPromiseState(value));
      if (!state.ok) return state;
      const s = state.value;
      if (s.type === "fulfilled") {
        if (s.notAPromise) return { ok: true, value };
        value.dispose();
        return { ok: true, value: s.value };
      }
      if (s.type === "rejected") {
        value.dispose();
        return this.failure("run", s.error);
      }
      if (this.readsOut === 0) {
        value.dispose();
        return fail({
          code: "BAD_OUTPUT",
          message:
            "run returned a promise that never settles: it waits for something other than rein.readFile, and nothing else can happen in the sandbox",
        });
      }
      const left = this.deadline - performance.now();
      if (left <= 0 || !(await this.waitForHost(left))) {
        this.timedOut = true;
        value.dispose();
        return fail(timeoutError(this.limits));
      }
    }
  }

  /** True when a host call settled, false when the time ran out first. */
  private waitForHost(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }

  /** The result as JSON text within maxOutputBytes; the handle is consumed. */
  output(value: QuickJSHandle): Step<string> {
    const json = this.guard(() => this.ctx.callFunction(this.prelude.toJson, this.ctx.undefined, value));
    if (!json.ok) return json;
    value.dispose();
    if (json.value.error) return this.failure("output", json.value.error);
    const text = json.value.value;
    const max = this.limits.maxOutputBytes;
    const read = this.guard((): Step<string> => {
      if (this.ctx.typeof(text) !== "string")
        return fail({ code: "BAD_OUTPUT", message: "the tool's return value has no JSON form (its toJSON returned undefined)" });
      // A string longer than the cap in UTF-16 units is longer in UTF-8 too: refuse it without copying it out.
      const length = this.ctx.getProp(text, "length");
      const units = this.ctx.getNumber(length);
      length.dispose();
      if (units > max) return fail(tooBig(max));
      const s = this.ctx.getString(text);
      return Buffer.byteLength(s, "utf8") > max ? fail(tooBig(max)) : { ok: true, value: s };
    });
    if (!read.ok) return read;
    text.dispose();
    return read.value;
  }

  private log(line: QuickJSHandle): void {
    if (this.logBytes > MAX_LOG_BYTES || this.ctx.typeof(line) !== "string") return;
    const text = this.ctx.getString(line);
    this.logBytes += Buffer.byteLength(text, "utf8");
    this.logs.push(
      this.logBytes > MAX_LOG_BYTES ? `[more output was dropped: the tool may log ${formatBytes(MAX_LOG_BYTES)} per run]` : text,
    );
  }

  /** rein.readFile: a promise in the tool, settled when the host answers. */
  private read(readFile: (path: string) => Promise<string>, pathHandle: QuickJSHandle): QuickJSHandle | { error: QuickJSHandle } {
    if (this.readCalls >= MAX_READ_CALLS)
      return { error: this.ctx.newError(`rein.readFile may be called at most ${MAX_READ_CALLS} times in one run`) };
    this.readCalls++;
    const path = this.ctx.getString(pathHandle);
    const call = `rein.readFile(${JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path)})`;
    const deferred = this.ctx.newPromise();
    this.deferreds.add(deferred);
    this.readsOut++;
    const cap = maxReadBytes(this.limits);
    void (async () => {
      let text: string | null = null;
      let problem: string | null = null;
      try {
        const got: unknown = await readFile(path);
        if (typeof got !== "string") problem = "the host returned no text";
        else if (Buffer.byteLength(got, "utf8") > cap)
          problem = `the file is larger than ${formatBytes(cap)}, the most a tool may read at once`;
        else text = got;
      } catch (err) {
        problem = hostMessage(err);
      }
      this.readsOut--;
      if (this.closed) return;
      this.guard(() => {
        if (text !== null) {
          const h = this.ctx.newString(text);
          deferred.resolve(h);
          h.dispose();
        } else {
          const e = this.ctx.newError({ name: "Error", message: problem ?? "the host failed" });
          this.hostErrors.push({ handle: e.dup(), call, message: problem ?? "the host failed" });
          deferred.reject(e);
          e.dispose();
        }
      });
      this.wake?.();
    })();
    return deferred.handle;
  }

  /** Disposes everything; a failure to clean up is a Rein bug and is reported as the run's error. */
  close(): SandboxError | null {
    this.closed = true;
    this.wake?.();
    if (this.broken) return null; // dropped whole: nothing in it can be trusted to free itself
    try {
      for (const d of this.deferreds) d.dispose();
      for (const h of this.hostErrors) h.handle.dispose();
      this.prelude?.dispose();
      this.ctx.dispose();
      this.rt.dispose();
      return null;
    } catch (err) {
      const said = this.engine.stderr.length ? ` ${this.engine.stderr.join(" ")}` : "";
      return { code: "HOST_ERROR", message: `the sandbox could not be cleaned up after the tool (${hostMessage(err)})${said}` };
    }
  }
}

function tooBig(max: number): SandboxError {
  return { code: "BAD_OUTPUT", message: `the tool's return value is more than ${formatBytes(max)} as JSON; return less, or a summary` };
}
