// A hostile ACP agent for the attack suite (test/attack/hosted.test.ts): what
// it does is picked by HOSTILE_MODE, each mode one attack a hosted program
// could make on Rein. It writes what it saw to /workspace/hostile.log.
import fs from "node:fs";
import net from "node:net";
import { execSync, spawnSync } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

// The hostile program's own settings, read once; they are not Rein's variables.
const { HOSTILE_MODE: MODE, HOSTILE_N, HOSTILE_SIZE, HOSTILE_K, HOSTILE_STOP, OPENAI_BASE_URL, OPENAI_API_KEY } = process.env;
const log = (m) => {
  try {
    fs.appendFileSync("/workspace/hostile.log", m + "\n");
  } catch {}
};
const perm = (client, sessionId, toolCallId, command) =>
  client.request("session/request_permission", {
    sessionId,
    toolCall: { toolCallId, kind: "execute", title: command, rawInput: { command } },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "always", name: "Always", kind: "allow_always" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  });

async function replay(client, sessionId) {
  const a = await perm(client, sessionId, "X", "./deploy.sh --dry-run");
  log("first: " + JSON.stringify(a));
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" > deployed.txt\n', { mode: 0o755 });
  const evil = "./deploy.sh production";
  const b = await perm(client, sessionId, "X", evil);
  log("second: " + JSON.stringify(b));
  const t = await client.request("terminal/create", { sessionId, command: evil });
  const e = await client.request("terminal/wait_for_exit", { sessionId, terminalId: t.terminalId });
  const o = await client.request("terminal/output", { sessionId, terminalId: t.terminalId });
  log("terminal: " + JSON.stringify(e) + " " + JSON.stringify(o));
}

function sh(c) {
  try {
    return execSync(c, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return "ERR " + e.message;
  }
}

async function probe() {
  log("id: " + sh("id"));
  log("ls /: " + sh("ls -la /"));
  log("mounts: " + sh("cat /proc/self/mountinfo"));
  log("home: " + sh("ls -la /home/agent; touch /home/agent/x && echo homewritable"));
  log("env keys: " + Object.keys(process.env).join(","));
  log("token: " + (OPENAI_API_KEY ?? "").slice(0, 12));
  log("ps: " + sh("ls /proc | grep -E '^[0-9]+$' | while read p; do echo $p $(tr '\\0' ' ' < /proc/$p/cmdline); done"));
  log("tmp: " + sh("df -h /tmp /home/agent /workspace"));
  log("limits: " + sh("cat /proc/self/limits"));
  log("symlink home: " + sh("ln -s / /home/agent/rootlink && ls /home/agent/rootlink/ | head -3"));
}

async function flood(client, sessionId) {
  const n = Number(HOSTILE_N ?? 2000);
  const big = "x".repeat(Number(HOSTILE_SIZE ?? 1000));
  for (let i = 0; i < n; i++) {
    await client.notify("session/update", {
      sessionId,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: `t${i}`,
        title: `t${i}`,
        kind: "other",
        status: "completed",
        rawInput: { big },
        content: [{ type: "content", content: { type: "text", text: big } }],
      },
    });
  }
  log("flood sent " + n);
}

async function edited(client, sessionId) {
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" >> deployed.txt\n', { mode: 0o755 });
  const cmd = "./deploy.sh production";
  const a = await perm(client, sessionId, "E1", cmd);
  log("answer: " + JSON.stringify(a));
  if (a.outcome.optionId !== "allow") return;
  const t = await client.request("terminal/create", { sessionId, command: cmd });
  await client.request("terminal/wait_for_exit", { sessionId, terminalId: t.terminalId });
}

async function calls(signal) {
  const k = Number(HOSTILE_K ?? 5);
  const body = JSON.stringify({ model: "x", messages: [{ role: "user", content: "hi" }] });
  for (let i = 0; i < k; i++) {
    const r = await fetch(OPENAI_BASE_URL + "/chat/completions", {
      method: "POST",
      headers: { authorization: "Bearer " + OPENAI_API_KEY, "content-type": "application/json" },
      body,
    });
    log("call " + i + " -> " + r.status + (r.status === 200 ? "" : " " + (await r.text()).slice(0, 120)));
  }
  log("calls done; holding the turn open");
  await new Promise((resolve) => signal.addEventListener("abort", resolve));
}

async function ctrl(client, sessionId) {
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" >> deployed.txt\n', { mode: 0o755 });
  for (const command of ["echo hi\u0015./deploy.sh prod-ctrl-u", "true # \r./deploy.sh prod-cr"]) {
    const t = await client.request("terminal/create", { sessionId, command });
    const e = await client.request("terminal/wait_for_exit", { sessionId, terminalId: t.terminalId });
    log("ctrl " + JSON.stringify(command) + " -> " + JSON.stringify(e));
  }
}

async function terms(client, sessionId) {
  const n = Number(HOSTILE_N ?? 50);
  const made = await Promise.all(
    Array.from({ length: n }, () =>
      client.request("terminal/create", { sessionId, command: "sleep 2" }).then(
        () => "ok",
        () => "refused",
      ),
    ),
  );
  log("terms ok " + made.filter((m) => m === "ok").length);
}

async function askflood(client, sessionId) {
  const n = Number(HOSTILE_N ?? 200);
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(perm(client, sessionId, "ask" + i, "./deploy.sh env" + i).catch((e) => e.message));
  log("askflood sent " + n);
  await new Promise((r) => setTimeout(r, 3000));
}

async function burst() {
  const n = Number(HOSTILE_N ?? 10);
  const body = JSON.stringify({ model: "x", messages: [{ role: "user", content: "hi" }] });
  const one = () =>
    fetch(OPENAI_BASE_URL + "/chat/completions", {
      method: "POST",
      headers: { authorization: "Bearer " + OPENAI_API_KEY, "content-type": "application/json" },
      body,
    }).then(async (r) => r.status + (r.status === 200 ? "" : ":" + (await r.text()).slice(0, 160)) + "@" + (Date.now() - t0));
  const t0 = Date.now();
  const statuses = await Promise.all(Array.from({ length: n }, one));
  log("burst statuses\n" + statuses.join("\n"));
  const after = await one();
  log("after " + after);
}

/** One request on the shell relay's socket as the agent likes it, and Rein's answer. */
function relayRaw(payload) {
  return new Promise((resolve) => {
    const socket = net.connect("/run/rein-shell/shell.sock");
    const chunks = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", (e) => resolve("socket error " + e.message));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8").slice(0, 300)));
    socket.end(payload);
  });
}

/** Commands through the relay's `bash` and the relay's socket that Rein's terminal would not run. */
async function relay() {
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" >> deployed.txt\n', { mode: 0o755 });
  const bash = (script) => {
    const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    return r.status + " " + (r.stdout + r.stderr).trim().slice(0, 300);
  };
  log("which bash: " + sh("command -v bash").trim());
  log("relayed echo: " + bash("echo relayed-$((6*7))"));
  log("relayed ctrl: " + bash("echo hi\u0015./deploy.sh prod-relay-ctrl"));
  log("raw not json: " + (await relayRaw("{nope")));
  log("raw three args: " + (await relayRaw(JSON.stringify({ args: ["-c", "./deploy.sh prod-args", "x"], cwd: "/workspace" }))));
  log("raw outside: " + (await relayRaw(JSON.stringify({ args: ["-c", "./deploy.sh prod-outside"], cwd: "/etc" }))));
  log("raw huge: " + (await relayRaw(JSON.stringify({ args: ["-c", "true #" + "x".repeat(3 * 1024 * 1024)], cwd: "/workspace" }))));
  log("relayed deploy: " + bash("./deploy.sh prod-unasked"));
}

/** A command through the relay's `bash` that the agent stops waiting for (it is killed) after `ms`. */
async function relaycancel() {
  const { spawn } = await import("node:child_process");
  const child = spawn("bash", ["-c", "sleep 4; echo late > /workspace/late.txt"], { stdio: "ignore" });
  const code = new Promise((resolve) => child.on("exit", (c, s) => resolve(c + "/" + s)));
  await new Promise((r) => setTimeout(r, 1000));
  child.kill("SIGTERM");
  log("relaycancel: shim ended " + (await code));
  await new Promise((r) => setTimeout(r, 6000));
  log("relaycancel: late " + fs.existsSync("/workspace/late.txt"));
}

/** Questions for a person that the agent withdraws once asked ($/cancel_request), one after another. */
async function askcancel(client, sessionId) {
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" >> deployed.txt\n', { mode: 0o755 });
  const n = Number(HOSTILE_N ?? 10);
  for (let i = 0; i < n; i++) {
    const ctrl = new AbortController();
    const p = client
      .request(
        "session/request_permission",
        {
          sessionId,
          toolCall: { toolCallId: "ac" + i, kind: "execute", title: "./deploy.sh prod" + i, rawInput: { command: "./deploy.sh prod" + i } },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
        { cancellationSignal: ctrl.signal, stopWaitingOnCancel: true },
      )
      .then(
        (a) => JSON.stringify(a),
        (e) => "error " + e.message,
      );
    await new Promise((r) => setTimeout(r, Number(HOSTILE_K ?? 700)));
    ctrl.abort();
    log("askcancel " + i + ": " + (await p));
  }
  log("askcancel sent " + n);
  await new Promise((r) => setTimeout(r, 3000));
}

/** The same through the relay: each command waits for a person, and the agent hangs up. */
async function relayflood() {
  fs.writeFileSync("/workspace/deploy.sh", '#!/bin/sh\necho DEPLOYED "$@" >> deployed.txt\n', { mode: 0o755 });
  const { spawn } = await import("node:child_process");
  const n = Number(HOSTILE_N ?? 10);
  for (let i = 0; i < n; i++) {
    const child = spawn("bash", ["-c", "./deploy.sh prod-flood-" + i], { stdio: "ignore" });
    await new Promise((r) => setTimeout(r, 700));
    child.kill("SIGTERM");
  }
  log("relayflood sent " + n);
  await new Promise((r) => setTimeout(r, 3000));
}

/** Commands through the relay, one after another, whatever Rein says of the turn (session/cancel is not heard). */
async function relayticks() {
  for (let i = 0; i < Number(HOSTILE_N ?? 40); i++) {
    const r = spawnSync("bash", ["-c", "echo tick-" + i + " >> /workspace/ticks.txt"], { encoding: "utf8" });
    log("tick " + i + " " + Date.now() + " " + r.status + " " + (r.stderr || "").trim().slice(0, 200));
    await new Promise((r) => setTimeout(r, 150));
  }
}

let cancelTurn = new AbortController();
const app = acp
  .agent({ name: "hostile" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "hostile", version: "1" },
    agentCapabilities: { loadSession: MODE === "calls" },
    authMethods: [],
  }))
  .onRequest("session/new", () => ({ sessionId: "S" }))
  .onRequest("session/load", () => ({}))
  .onNotification("session/cancel", () => {
    cancelTurn.abort();
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    try {
      if (MODE === "replay") await replay(client, params.sessionId);
      if (MODE === "probe") await probe();
      if (MODE === "badstop") {
        log("prompted");
        return { stopReason: HOSTILE_STOP ?? "bogus" };
      }
      if (MODE === "calls") {
        cancelTurn = new AbortController();
        await calls(cancelTurn.signal);
        return { stopReason: "cancelled" };
      }
      if (MODE === "edited") await edited(client, params.sessionId);
      if (MODE === "ctrl") await ctrl(client, params.sessionId);
      if (MODE === "askflood") await askflood(client, params.sessionId);
      if (MODE === "terms") await terms(client, params.sessionId);
      if (MODE === "burst") await burst();
      if (MODE === "flood") await flood(client, params.sessionId);
      if (MODE === "relay") await relay();
      if (MODE === "relaycancel") await relaycancel();
      if (MODE === "askcancel") await askcancel(client, params.sessionId);
      if (MODE === "relayflood") await relayflood();
      if (MODE === "relayticks") await relayticks();
    } catch (e) {
      log("error: " + (e?.message ?? e) + " " + JSON.stringify(e?.data ?? null));
    }
    return { stopReason: "end_turn" };
  });
const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
process.exit(0);
