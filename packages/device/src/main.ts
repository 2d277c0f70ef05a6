// rein-device: pair, run, status, forget (docs/devices.md#on-the-device).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEVICE_PAIR_PATH, normalizePairingCode, type PairAnswer } from "../../../lib/device-protocol";
import { DeviceAgent } from "./agent";
import { capabilities } from "./capabilities";
import { configPath, forgetConfig, readConfig, writeConfig } from "./config";
import { AGENT_VERSION } from "./version";

const USAGE = `rein-device ${AGENT_VERSION}: lets your Rein's runs use one folder of this computer, with your consent.

  rein-device pair <rein-url> <CODE> --folder DIR [--name NAME] [--commands none|any] [--expose usb,gpu,…]
  rein-device run
  rein-device status
  rein-device forget

pair     trades a pairing code (made in Rein with: rein devices pair) for this device's token
         --folder    the one folder Rein's runs may read and write
         --commands  none (default): no terminal; any: a terminal in that folder (confined by bubblewrap where it can be)
         --expose    hardware you choose to tell Rein about; nothing else is claimed
run      connects to Rein and serves it until you stop it (Ctrl-C); it reconnects by itself
status   what this device is paired with
forget   deletes the token here (revoke the device in Rein too)`;

class UsageError extends Error {}

function flags(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      folder: { type: "string" },
      name: { type: "string" },
      commands: { type: "string" },
      expose: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function reinUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${text} is not a URL: give your Rein's address, like https://rein.example.org`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError("Rein's address starts with https:// (or http:// on a local network)");
  url.hash = "";
  url.search = "";
  return url.toString().replace(/\/+$/, "");
}

function folderOf(text: string | undefined): string {
  if (!text) throw new UsageError("pair needs --folder DIR: the one folder Rein's runs may use");
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(text.replace(/^~(?=$|\/)/, os.homedir())));
  } catch {
    throw new UsageError(`The folder ${text} does not exist: make it first`);
  }
  if (!fs.statSync(real).isDirectory()) throw new UsageError(`${text} is not a folder`);
  if (real === "/") throw new UsageError("The whole file system is not a folder to share: choose one folder");
  refuseIfHoldsToken(real);
  return real;
}

/** A path made real through its nearest existing parent (the settings' folder may not exist before the first pairing). */
function realish(p: string): string {
  const rest: string[] = [];
  let at = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...rest);
    } catch {
      const up = path.dirname(at);
      if (up === at) return path.resolve(p);
      rest.unshift(path.basename(at));
      at = up;
    }
  }
}

/**
 * The agent's own settings, its token among them, must not be in the shared folder: a run's file tools (the file
 * service is rooted there) and its confined terminal (the folder is bound back over the hidden home) would read
 * the device's whole authority.
 */
function refuseIfHoldsToken(folder: string): void {
  const settings = realish(path.dirname(configPath()));
  const rel = path.relative(folder, settings);
  if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel)))
    throw new UsageError(
      `${folder} holds this agent's own settings and token (${settings}): Rein's runs could read them there. Share a folder inside it instead`,
    );
}

async function pair(args: string[]) {
  const { values, positionals } = flags(args);
  const [url, code] = positionals;
  if (!url || !code)
    throw new UsageError("pair needs Rein's address and the pairing code: rein-device pair <rein-url> <CODE> --folder DIR");
  const base = reinUrl(url);
  const normal = normalizePairingCode(code);
  if (!normal) throw new UsageError(`${code} is not a pairing code: it has 8 letters and digits, like ABCD-EFGH`);
  const folder = folderOf(values.folder);
  if (folder === fs.realpathSync(os.homedir())) console.log("Note: you are sharing your whole home folder with Rein's runs.");
  const commands = values.commands ?? "none";
  if (commands !== "none" && commands !== "any")
    throw new UsageError("--commands is none or any (a shell line cannot be checked safely, so there is nothing in between)");
  const expose = (values.expose ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (expose.some((e) => !/^[a-z0-9][a-z0-9._-]{0,39}$/.test(e)))
    throw new UsageError("--expose takes short words separated by commas: usb,gpu");
  const name = (values.name ?? os.hostname()).trim().slice(0, 80) || "device";
  const res = await fetch(`${base}${DEVICE_PAIR_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: normal, name, capabilities: capabilities({ commands, expose }) }),
    signal: AbortSignal.timeout(20_000),
  }).catch((err: Error) => {
    throw new UsageError(`Could not reach Rein at ${base}: ${err.message}`);
  });
  const body = (await res.json().catch(() => null)) as (PairAnswer & { error?: { message?: string } }) | null;
  if (!res.ok || !body?.token) throw new UsageError(`Rein refused the pairing: ${body?.error?.message ?? `HTTP ${res.status}`}`);
  writeConfig({ url: base, deviceId: body.deviceId, name: body.name, token: body.token, folder, commands, expose });
  console.log(`Paired: this computer is the device ${body.name} (${body.deviceId}) of ${base}.`);
  console.log(`Its token is in ${configPath()} (readable by you alone).`);
  console.log(`Rein's runs may use ${folder}; commands: ${commands}.`);
  console.log("Start serving with: rein-device run");
}

async function status() {
  const config = readConfig();
  if (!config) return console.log(`Not paired (no ${configPath()}). Pair with: rein-device pair <rein-url> <CODE> --folder DIR`);
  console.log(`Device ${config.name} (${config.deviceId}) of ${config.url}`);
  console.log(`Folder: ${config.folder}${fs.existsSync(config.folder) ? "" : " (MISSING: runs cannot use it)"}`);
  console.log(
    `Commands: ${config.commands}${config.commands === "any" ? (capabilities(config).confined ? ", confined by bubblewrap" : ", NOT confined") : ""}`,
  );
  console.log(`Hardware told to Rein: ${config.expose.length ? config.expose.join(", ") : "none"}`);
  const reachable = await fetch(`${config.url}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.ok,
    () => false,
  );
  console.log(reachable ? "Rein answers at that address." : "Rein does not answer at that address now.");
}

async function run() {
  const config = readConfig();
  if (!config) throw new UsageError("Not paired yet: rein-device pair <rein-url> <CODE> --folder DIR");
  if (!fs.existsSync(config.folder)) throw new UsageError(`The folder ${config.folder} is gone: make it again or pair again with another`);
  refuseIfHoldsToken(config.folder);
  const agent = new DeviceAgent(config);
  process.on("SIGINT", () => agent.stop());
  process.on("SIGTERM", () => agent.stop());
  process.exitCode = await agent.run();
  process.exit();
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  switch (command) {
    case "pair":
      return pair(rest);
    case "run":
      return run();
    case "status":
      return status();
    case "forget":
      console.log(
        forgetConfig()
          ? `Forgot this device's token (${configPath()}). Revoke the device in Rein too: rein devices revoke ID`
          : "Nothing to forget: not paired",
      );
      return;
    case "--version":
      return console.log(AGENT_VERSION);
    default:
      console.log(USAGE);
      if (command && command !== "help" && command !== "--help" && command !== "-h") process.exitCode = 1;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exitCode = 1;
});
