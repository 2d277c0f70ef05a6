// A policy reader thread's entry (built beside the server bundle as
// policy-worker.mjs): it reads one shell command line at a time for the
// policy, off the server's event loop (reader.ts,
// docs/security.md#the-policy-reads-command-lines).
import { parentPort } from "node:worker_threads";
import type { FromReader, ToReader } from "./reader-protocol";
import { analyzeShell } from "./shell";

const port = parentPort;
if (!port) throw new Error("the policy reader must run in a worker thread");

port.on("message", (msg: ToReader) => {
  let reply: FromReader;
  try {
    reply = { type: "read", id: msg.id, analysis: analyzeShell(msg.command) };
  } catch {
    reply = { type: "read", id: msg.id, analysis: { parts: [], unresolved: "the command could not be read" } };
  }
  port.postMessage(reply);
});

// Loading the shell parser is the slow part of starting: the server waits for it before timing a command.
analyzeShell("true");
port.postMessage({ type: "ready" } satisfies FromReader);
