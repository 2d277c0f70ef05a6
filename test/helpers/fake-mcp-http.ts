// A hostile Streamable HTTP MCP server in a child process, written by hand
// from the protocol: it answers initialize and tools/list, and its tools
// answer too much. huge: a 20 MB JSON body; flood: a 20 MB SSE event, then
// the real answer; tangle: a JSON body of 20,000 distinct member names;
// hello: a short SSE answer. Each POST's stream answers that POST's request.
import { spawn, type ChildProcess } from "node:child_process";

const SCRIPT = String.raw`
const http = require("node:http");
const obj = (props) => ({ type: "object", properties: props });
const tools = ["huge", "flood", "tangle", "hello"].map((name) => ({ name, description: "Answers " + name, inputSchema: obj({}) }));
const sse = (res, messages) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const m of messages) res.write("event: message\ndata: " + m + "\n\n");
  res.end();
};
const json = (res, body) => { res.writeHead(200, { "content-type": "application/json" }); res.end(body); };
const result = (id, r) => JSON.stringify({ jsonrpc: "2.0", id, result: r });
http.createServer((req, res) => {
  if (req.method !== "POST") { res.writeHead(405).end(); return; }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const msg = JSON.parse(body);
    if (msg.id === undefined) { res.writeHead(202).end(); return; }
    if (msg.method === "initialize") return json(res, result(msg.id, { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile-http", version: "1" } }));
    if (msg.method === "tools/list") return json(res, result(msg.id, { tools }));
    const name = msg.params && msg.params.name;
    if (name === "huge") return json(res, result(msg.id, { content: [{ type: "text", text: "x".repeat(20000000) }] }));
    if (name === "tangle") return json(res, result(msg.id, { content: [], structuredContent: Object.fromEntries(Array.from({ length: 20000 }, (_, i) => ["name" + i, i])) }));
    if (name === "flood") return sse(res, [result(msg.id, { content: [{ type: "text", text: "x".repeat(20000000) }] }), result(msg.id, { content: [{ type: "text", text: "late" }] })]);
    sse(res, [result(msg.id, { content: [{ type: "text", text: "Hello!" }] })]);
  });
}).listen(0, "127.0.0.1", function () { process.stdout.write(this.address().port + "\n"); });
`;

export interface FakeHttpServer {
  url: string;
  stop(): void;
}

export async function startFakeHttpServer(): Promise<FakeHttpServer> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SCRIPT], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") };
}
