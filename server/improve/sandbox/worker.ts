// A sandbox worker thread's entry (built beside the server bundle as
// sandbox-worker.mjs): it runs one job at a time and asks the server for each
// readFile, since what the host lends lives on the server's side.
import { parentPort } from "node:worker_threads";
import { warmUp } from "./engine";
import { checkSource, executeTool } from "./execute";
import type { FromWorker, ToWorker } from "./protocol";
import type { SandboxHost } from "./types";

const port = parentPort;
if (!port) throw new Error("the sandbox worker must run in a worker thread");

const send = (msg: FromWorker) => port.postMessage(msg);
const reads = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
let nextRead = 0;

function hostFor(id: number, lent: boolean): SandboxHost {
  if (!lent) return {};
  return {
    readFile: (path) =>
      new Promise((resolve, reject) => {
        const readId = nextRead++;
        reads.set(readId, { resolve, reject });
        send({ type: "read", id, readId, path });
      }),
  };
}

port.on("message", (msg: ToWorker) => {
  if (msg.type === "read-result") {
    const read = reads.get(msg.readId);
    reads.delete(msg.readId);
    if (msg.error !== undefined) read?.reject(new Error(msg.error));
    else read?.resolve(msg.text ?? "");
  } else if (msg.type === "run") {
    void executeTool(msg.source, msg.argsJson, msg.limits, hostFor(msg.id, msg.readFile)).then((executed) => {
      reads.clear(); // a read still out belongs to a run that is over
      send({ type: "ran", id: msg.id, executed });
    });
  } else if (msg.type === "check") {
    void checkSource(msg.source).then((problem) => send({ type: "checked", id: msg.id, problem }));
  }
});

// A worker that cannot load QuickJS fails here, and the pool reports it.
void warmUp().then(() => send({ type: "ready" }));
