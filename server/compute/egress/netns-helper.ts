// Runs inside the desktop browser's own network namespace (bwrap
// --unshare-net; it shares the file system, not the network): the only way
// out is a local port relayed to Rein's egress proxy on a unix socket, and
// the only way in is a unix socket relayed to Chromium's DevTools port. Then
// it starts Chromium and lives as long as Chromium does. Plain JavaScript,
// so the same program runs under the tests and in the built server.
export const NETNS_PROXY_PORT = 3128;

export const NETNS_HELPER = String.raw`
"use strict";
const net = require("net");
const { spawn } = require("child_process");
const fs = require("fs");
const relay = (to) => (client) => {
  const upstream = net.connect(to);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
};
const out = net.createServer(relay({ path: process.env.REIN_EGRESS_SOCKET }));
out.listen(${NETNS_PROXY_PORT}, "127.0.0.1");
try { fs.rmSync(process.env.REIN_CDP_SOCKET, { force: true }); } catch (e) {}
// Chromium picks its DevTools port and writes it to DevToolsActivePort (first line).
let cdpPort = 0;
const cdp = net.createServer((client) => {
  if (!cdpPort) {
    try { cdpPort = Number.parseInt(fs.readFileSync(process.env.REIN_DEVTOOLS_FILE, "utf8"), 10) || 0; } catch (e) {}
  }
  if (!cdpPort) return client.destroy();
  relay({ host: "127.0.0.1", port: cdpPort })(client);
});
cdp.listen(process.env.REIN_CDP_SOCKET, () => fs.chmodSync(process.env.REIN_CDP_SOCKET, 0o600));
const env = Object.assign({}, process.env);
delete env.REIN_EGRESS_SOCKET;
delete env.REIN_CDP_SOCKET;
delete env.REIN_DEVTOOLS_FILE;
const [command, ...args] = process.argv.slice(1);
const child = spawn(command, args, { stdio: "inherit", env: env });
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
child.on("exit", (code, signal) => process.exit(code === null ? 128 : code));
`;
