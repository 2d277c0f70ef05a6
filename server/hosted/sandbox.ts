// A hosted agent's process (docs/hosted-agents.md#the-sandbox): it runs in
// the run's file sandbox (bubblewrap, nothing of the host but the run's
// workspace at /workspace and its own files read-only, no network), and the
// only address it reaches is Rein's model gateway: a relay inside the
// sandbox's own loopback to a unix socket of Rein's. Its stdin and stdout
// carry the protocol; its home folder is the run's, so a session it saved
// survives a restart of Rein.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { DEFAULT_LIMITS, jailNode, spawnInJail } from "@/server/compute";
import { PROGRAM_ROOT, type GatewayEndpoint, type HostedProgram } from "./programs";
import { RELAY_BIN, RELAY_SOCKET_AT, writeRelayShim } from "./relay";

/**
 * A hosted agent's process and everything it starts (docs/hosted-agents.md#the-sandbox): a terminal pod's
 * limits, but for memory and tasks. A coding agent's CLI with its workers needs more than a pod's shell: Qwen Code
 * exited mid-session in a third of the runs under 2 GiB, and the count is of threads as well as processes.
 */
export const AGENT_LIMITS = {
  memoryMb: 4096,
  processes: 1024,
  cpuSeconds: DEFAULT_LIMITS.cpuSeconds,
  fileSizeMb: DEFAULT_LIMITS.fileSizeMb,
  tmpMb: DEFAULT_LIMITS.tmpMb,
};

/** The port the relay listens on inside the sandbox's loopback. */
export const GATEWAY_PORT = 4100;
const SANDBOX_HOME = "/home/agent";
const GATEWAY_SOCKET_AT = "/run/rein-gateway/gateway.sock";

/**
 * Runs first inside the sandbox: a relay from 127.0.0.1:GATEWAY_PORT to the
 * gateway's socket, then the program with stdio inherited. It writes nothing
 * to stdout (the protocol's), and goes when the program goes.
 */
const LAUNCHER = String.raw`
"use strict";
const net = require("net");
const { spawn } = require("child_process");
const socket = process.env.REIN_GATEWAY_SOCKET;
const port = Number(process.env.REIN_GATEWAY_PORT);
const env = Object.assign({}, process.env);
delete env.REIN_GATEWAY_SOCKET;
delete env.REIN_GATEWAY_PORT;
const relay = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
relay.on("error", (e) => { process.stderr.write("gateway relay: " + e.message + "\n"); process.exit(70); });
relay.listen(port, "127.0.0.1", () => {
  const [command, ...args] = process.argv.slice(1);
  const child = spawn(command, args, { stdio: "inherit", env });
  child.on("error", (e) => { process.stderr.write("cannot start " + command + ": " + e.message + "\n"); process.exit(127); });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
  child.on("exit", (code, signal) => process.exit(code === null ? 128 : code));
});
`;

export interface AgentProcessOptions {
  program: HostedProgram;
  workspaceDir: string;
  /** The run's own folder of Rein's: the program's home (writable) and the gateway's socket live here. */
  runDir: string;
  /** Where Rein's gateway listens for this run, on the host. */
  gatewaySocket: string;
  gateway: Omit<GatewayEndpoint, "origin">;
  /**
   * The shell relay's socket on the host, for a program that runs its commands itself (HostedProgram.relaysShell) in
   * a run with a pod: its `bash -c` runs at the pod's prompt (docs/hosted-agents.md#commands-in-the-terminal-tab).
   */
  relaySocket?: string;
}

/** The run's folders: `home` (the program's, writable inside) and the socket's (Rein's, bound read-only). */
export function runFolders(runDir: string) {
  const home = path.join(runDir, "home");
  const net = path.join(runDir, "net");
  for (const dir of [runDir, home, net]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    home,
    net,
    socket: path.join(net, "gateway.sock"),
    relaySocket: path.join(net, "shell.sock"),
    relayBin: path.join(runDir, "shell"),
  };
}

export function startAgentProcess(options: AgentProcessOptions): ChildProcess {
  const installed = options.program.install();
  if ("missing" in installed) throw new Error(`${options.program.name} cannot start: ${installed.missing}`);
  const { home, relayBin } = runFolders(options.runDir);
  const origin = `http://127.0.0.1:${GATEWAY_PORT}`;
  const relay = options.relaySocket && options.program.relaysShell ? options.relaySocket : null;
  if (relay) writeRelayShim(relayBin, jailNode());
  const env = {
    HOME: SANDBOX_HOME,
    PATH: `${relay ? `${RELAY_BIN}:` : ""}/usr/local/bin:/usr/bin:/bin`,
    NO_BROWSER: "1",
    REIN_GATEWAY_SOCKET: GATEWAY_SOCKET_AT,
    REIN_GATEWAY_PORT: String(GATEWAY_PORT),
    ...options.program.env({ ...options.gateway, origin }),
  };
  const argv = options.program.argv.map((a, i) => (i === 0 && a === "node" ? jailNode() : a));
  const limits = AGENT_LIMITS;
  // CPU time, file size and no core files per process (rlimits), memory and processes for all of them (a cgroup, where allowed).
  const prlimit = ["/usr/bin/prlimit", `--cpu=${limits.cpuSeconds}`, `--fsize=${limits.fileSizeMb * 1024 * 1024}`, "--core=0", "--"];
  return spawnInJail(options.workspaceDir, [...prlimit, jailNode(), "-e", LAUNCHER, ...argv], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
    readOnly: [
      ...installed.binds,
      { host: options.gatewaySocket, at: GATEWAY_SOCKET_AT },
      ...(relay
        ? [
            { host: relay, at: RELAY_SOCKET_AT },
            { host: relayBin, at: RELAY_BIN },
          ]
        : []),
    ],
    writable: [{ host: home, at: SANDBOX_HOME }],
    tmpMb: limits.tmpMb,
    cgroup: { id: `agent-${randomUUID()}`, processes: limits.processes, memoryMb: limits.memoryMb },
  });
}

export { PROGRAM_ROOT };
