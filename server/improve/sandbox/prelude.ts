// Rein's own code inside the sandbox, evaluated before the tool's source: it
// keeps the built-ins it needs (JSON, String, RegExp#exec) before the tool can
// replace them, so the tool's result is serialised, and its errors described,
// by code the tool cannot change. Nothing of it is on globalThis except
// `console`; the host holds the functions it returns.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { MAX_LOG_LINE_CHARS, MAX_PATH_CHARS } from "./limits";

/** The file name the tool's source is evaluated under: errors point into it by line and column. */
export const TOOL_FILE = "tool.js";

const PRELUDE = `(function (hostLog, hostRead, hostDenied) {
  "use strict";
  const uncurry = (f) => Function.prototype.call.bind(f);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toStr = String;
  const TypeError_ = TypeError;
  const slice = uncurry(String.prototype.slice);
  const exec = uncurry(RegExp.prototype.exec);
  const freeze = Object.freeze;
  const AT_TOOL = /${TOOL_FILE.replace(".", "\\.")}:(\\d+):(\\d+)/;

  // JSON, strictly: a function or symbol anywhere is refused rather than dropped.
  function toJson(value) {
    return stringify(value === undefined ? null : value, function (key, v) {
      const t = typeof v;
      if (t === "function" || t === "symbol") {
        throw new TypeError_((key === "" ? "the value" : "the value at key " + stringify(key)) + " is a " + t + ", which JSON cannot hold");
      }
      return v;
    });
  }

  function describe(e) {
    try {
      let name = null, message, line = null, column = null;
      if (e !== null && typeof e === "object" && "message" in e) {
        name = e.name === undefined ? null : slice(toStr(e.name), 0, 100);
        message = toStr(e.message);
        const at = exec(AT_TOOL, toStr(e.stack));
        if (at) { line = +at[1]; column = +at[2]; }
      } else if (typeof e === "string") {
        message = e;
      } else {
        let s;
        try { s = stringify(e); } catch (_) {}
        message = s === undefined ? toStr(e) : s;
      }
      return stringify({ name, message: slice(message, 0, 2000), line, column });
    } catch (_) {
      return stringify({ name: null, message: "(a value that could not be described)", line: null, column: null });
    }
  }

  function show(a) {
    if (typeof a === "string") return a;
    try { const s = stringify(a); if (s !== undefined) return s; } catch (_) {}
    try { return toStr(a); } catch (_) { return "[unprintable]"; }
  }
  function log() {
    let line = "";
    for (let i = 0; i < arguments.length && line.length <= ${MAX_LOG_LINE_CHARS}; i++) line += (i ? " " : "") + show(arguments[i]);
    hostLog(slice(line, 0, ${MAX_LOG_LINE_CHARS}));
  }
  const console = freeze({ log, info: log, warn: log, error: log, debug: log });

  const rein = hostRead
    ? freeze({
        readFile: function readFile(path) {
          if (typeof path !== "string") throw new TypeError_("rein.readFile(path) takes a string");
          if (path.length > ${MAX_PATH_CHARS}) throw new TypeError_("rein.readFile: the path is longer than ${MAX_PATH_CHARS} characters");
          return hostRead(path);
        },
      })
    : // Absent, but a tool that reaches for it is told which capability it lacks.
      new Proxy(freeze({}), { get(target, key) { if (key === "readFile") hostDenied("readFile"); return undefined; } });

  return { toJson, parse, describe, console, rein };
})`;

export interface PreludeHooks {
  log: (line: QuickJSHandle) => void;
  /** Given only when the run was lent readFile; returns the promise's handle. */
  read?: (path: QuickJSHandle) => QuickJSHandle | { error: QuickJSHandle };
  denied: (member: string) => void;
}

export interface Prelude {
  toJson: QuickJSHandle;
  parse: QuickJSHandle;
  describe: QuickJSHandle;
  rein: QuickJSHandle;
  dispose(): void;
}

/** Evaluates the prelude and sets globalThis.console. Throws only on a broken sandbox (the prelude itself cannot fail). */
export function installPrelude(ctx: QuickJSContext, hooks: PreludeHooks): Prelude {
  const factory = ctx.unwrapResult(ctx.evalCode(PRELUDE, "rein-prelude.js", { strict: true }));
  const read = hooks.read;
  const log = ctx.newFunction("log", (line) => void hooks.log(line));
  const readFile = read ? ctx.newFunction("readFile", (path) => read(path)) : null;
  const denied = ctx.newFunction("denied", (member) => void hooks.denied(ctx.getString(member)));
  const made = ctx.unwrapResult(ctx.callFunction(factory, ctx.undefined, log, readFile ?? ctx.undefined, denied));
  for (const h of [factory, log, readFile, denied]) h?.dispose();
  const [toJson, parse, describe, console, rein] = ["toJson", "parse", "describe", "console", "rein"].map((k) => ctx.getProp(made, k));
  made.dispose();
  ctx.setProp(ctx.global, "console", console);
  console.dispose();
  return {
    toJson,
    parse,
    describe,
    rein,
    dispose() {
      for (const h of [toJson, parse, describe, rein]) if (h.alive) h.dispose();
    },
  };
}
