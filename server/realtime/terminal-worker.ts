// The terminal worker thread's entry (built beside the server bundle as
// terminal-worker.mjs): every pod stream's headless terminal lives here, so
// whatever a pod prints costs this thread's time, never the server's event
// loop (docs/security.md#terminal-output-cannot-stall-the-server). Requests are answered in the order they came.
import { parentPort, threadId } from "node:worker_threads";
import { ScreenHost, type ScreenRequest } from "./terminal-screens";

const port = parentPort;
if (!port) throw new Error("the terminal worker must run in a worker thread");

export type ToScreenWorker = { n: number; req: ScreenRequest } | { n: number; where: true };
export type FromScreenWorker = { n: number; result: unknown } | { id: string; reply: string };

const host = new ScreenHost((reply) => port.postMessage(reply satisfies FromScreenWorker));
port.on("message", (msg: ToScreenWorker) => {
  const result = "where" in msg ? threadId : host.handle(msg.req);
  port.postMessage({ n: msg.n, result } satisfies FromScreenWorker);
});
