// Rein's side of an extension's script, evaluated in the sandbox after the
// package's files (bundle.ts): the module loader, the recording `api` that
// setup(api) registers with, and the test API (test, assert, tools). It keeps
// the built-ins it uses before any package code runs.
export const HARNESS = `function (files, config) {
  "use strict";
  const freeze = Object.freeze, keys = Object.keys, isArray = Array.isArray, is = Object.is;
  const stringify = JSON.stringify, parse = JSON.parse, toStr = String, Error_ = Error, TypeError_ = TypeError;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  const TEST_FILE = /^test\\/[A-Za-z0-9_-][A-Za-z0-9._-]*\\.test\\.js$/;
  const cache = {};
  const tests = [];
  const called = {};
  const tools = {};
  let collecting = false;

  function show(v) {
    try { const s = stringify(v); if (s !== undefined) return s.length > 300 ? s.slice(0, 300) + "…" : s; } catch (_) {}
    try { return toStr(v); } catch (_) { return "[unprintable]"; }
  }
  function fail(message) { const e = new Error_(message); e.name = "AssertionError"; return e; }
  function same(a, b, depth) {
    if (is(a, b)) return true;
    if (depth > 100 || typeof a !== "object" || typeof b !== "object" || a === null || b === null || isArray(a) !== isArray(b)) return false;
    const ka = keys(a), kb = keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!hasOwn(b, k) || !same(a[k], b[k], depth + 1)) return false;
    return true;
  }
  function matches(e, expected) {
    if (expected === undefined) return true;
    const message = e !== null && typeof e === "object" ? toStr(e.message) : toStr(e);
    if (typeof expected === "string") return message.includes(expected);
    if (expected instanceof RegExp) return expected.test(message);
    throw new TypeError_("assert.throws(fn, expected): expected is a string or a RegExp");
  }
  function checkThrown(e, expected, message) {
    if (!matches(e, expected)) throw fail(message || "the error " + show(e && e.message !== undefined ? e.message : e) + " does not match " + toStr(expected));
  }
  const assert = freeze({
    ok(value, message) { if (!value) throw fail(message || "expected a truthy value, got " + show(value)); },
    equal(actual, expected, message) { if (!is(actual, expected)) throw fail(message || "expected " + show(expected) + ", got " + show(actual)); },
    deepEqual(actual, expected, message) { if (!same(actual, expected, 0)) throw fail(message || "expected " + show(expected) + ", got " + show(actual)); },
    // A function that throws, or returns a promise that rejects (then await what assert.throws returns).
    throws(fn, expected, message) {
      let result;
      try { result = fn(); } catch (e) { checkThrown(e, expected, message); return; }
      if (result !== null && typeof result === "object" && typeof result.then === "function") {
        return result.then(
          (v) => { throw fail(message || "expected a rejection, got " + show(v)); },
          (e) => checkThrown(e, expected, message),
        );
      }
      throw fail(message || "expected an error, got " + show(result));
    },
  });
  function test(name, fn) {
    if (!collecting) throw new Error_("test(name, fn) is called at the top level of a test file");
    if (typeof name !== "string" || typeof fn !== "function") throw new TypeError_("test(name, fn) takes a name and a function");
    tests.push({ name, fn });
  }

  function resolve(from, spec) {
    const parts = from.split("/");
    parts.pop();
    for (const s of spec.split("/")) {
      if (s === "" || s === ".") continue;
      if (s === "..") { if (parts.length === 0) return null; parts.pop(); } else parts.push(s);
    }
    return parts.join("/");
  }
  function requireFrom(from) {
    return function require(spec) {
      if (typeof spec !== "string") throw new TypeError_("require(path) takes a string");
      const said = "require(" + show(spec) + ") in " + from;
      if (!(spec.startsWith("./") || spec.startsWith("../"))) {
        throw new Error_(said + ": an extension may require only its own files, by a relative path (\\"./lib/util.js\\"); there are no Node modules or built-ins in the sandbox");
      }
      const base = resolve(from, spec);
      if (base === null) throw new Error_(said + ": the path leads outside the package");
      for (const path of [base, base + ".js", base + "/index.js"]) if (hasOwn(files, path) && (!TEST_FILE.test(path) || path === from)) return load(path);
      throw new Error_(said + ": the package has no file " + show(base));
    };
  }
  function load(path) {
    if (hasOwn(cache, path)) return cache[path].exports;
    const file = files[path];
    const module = { exports: {} };
    cache[path] = module;
    if (typeof file === "function") {
      const isTest = TEST_FILE.test(path);
      file.call(module.exports, module, module.exports, requireFrom(path), isTest ? test : undefined, isTest ? assert : undefined, isTest ? tools : undefined);
    } else if (path.endsWith(".json")) module.exports = parse(file);
    else module.exports = file;
    return module.exports;
  }

  async function setup(rein) {
    const exported = load("index.js");
    if (exported === null || (typeof exported !== "object" && typeof exported !== "function")) throw new TypeError_("index.js must set module.exports = { name, version, setup(api) }");
    if (typeof exported.setup !== "function") throw new TypeError_("index.js exports no setup(api) function");
    const reg = { tools: [], skills: [], hooks: [], handlers: {}, hookHandlers: [] };
    let open = true;
    const check = (what) => { if (!open) throw new Error_("api." + what + " was called after setup(api) returned; register everything during setup"); };
    const api = freeze({
      registerTool(def) {
        check("registerTool");
        if (def === null || typeof def !== "object") throw new TypeError_("api.registerTool({ name, description, argsSchema, run }) takes an object");
        if (typeof def.name !== "string") throw new TypeError_("api.registerTool: name is a string");
        if (typeof def.run !== "function") throw new TypeError_("api.registerTool(" + show(def.name) + "): run(args, rein) is a function");
        if (hasOwn(reg.handlers, def.name)) throw new Error_("api.registerTool: " + show(def.name) + " is registered twice");
        reg.tools.push({ name: def.name, description: def.description === undefined ? "" : toStr(def.description), argsSchema: def.argsSchema === undefined ? null : def.argsSchema });
        reg.handlers[def.name] = def.run;
      },
      registerSkill(skill) {
        check("registerSkill");
        const text = typeof skill === "string" ? skill : skill !== null && typeof skill === "object" ? skill.text : undefined;
        if (typeof text !== "string") throw new TypeError_("api.registerSkill takes the text of a SKILL.md (or { text })");
        reg.skills.push(text);
      },
      on(eventType, handler) {
        check("on");
        if (typeof eventType !== "string" || typeof handler !== "function") throw new TypeError_("api.on(eventType, handler) takes an event type and a function");
        if (!reg.hooks.includes(eventType)) reg.hooks.push(eventType);
        reg.hookHandlers.push([eventType, handler]);
      },
    });
    await exported.setup(api);
    open = false;
    for (const t of reg.tools) {
      const handler = reg.handlers[t.name];
      tools[t.name] = function (args, testRein) {
        called[t.name] = true;
        return handler(parse(stringify(args === undefined ? {} : args)), testRein === undefined ? rein : testRein);
      };
    }
    freeze(tools);
    return { exported, reg };
  }

  return async function run(args, rein) {
    const { exported, reg } = await setup(rein);
    switch (config.mode) {
      case "load":
        return {
          name: typeof exported.name === "string" ? exported.name : null,
          version: typeof exported.version === "string" ? exported.version : null,
          tools: reg.tools, skills: reg.skills, hooks: reg.hooks,
        };
      case "tool":
        if (!hasOwn(reg.handlers, config.tool)) throw new Error_("the extension registered no tool " + config.tool);
        return reg.handlers[config.tool](args, rein);
      case "hook": {
        const answers = [];
        for (const [eventType, handler] of reg.hookHandlers) if (eventType === config.event) answers.push(await handler(args, rein));
        return answers;
      }
    }
    collecting = true;
    load(config.file);
    collecting = false;
    if (config.mode === "list") return tests.map((t) => t.name);
    const t = tests[config.index];
    if (!t || t.name !== config.name) throw new Error_("the test " + show(config.name) + " is not where it was when the tests were listed");
    try {
      await t.fn();
      return { ok: true, called: keys(called) };
    } catch (e) {
      const isObject = e !== null && typeof e === "object";
      let message;
      try { message = isObject && "message" in e ? (e.name ? toStr(e.name) + ": " : "") + toStr(e.message) : show(e); } catch (_) { message = "(an error that could not be described)"; }
      let stack = "";
      try { stack = isObject ? toStr(e.stack).slice(0, 4000) : ""; } catch (_) {}
      return { ok: false, message: message.slice(0, 2000), stack, called: keys(called) };
    }
  };
}`;
