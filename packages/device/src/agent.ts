// `rein-device run` (docs/devices.md#on-the-device): connects out to Rein,
// says hello with its token, serves the requests it gets, and reconnects with
// backoff (1 s to 30 s, with jitter) whenever Rein goes away, until Rein says
// the device is unknown or revoked.
import {
  DEVICE_CLOSE,
  DEVICE_MAX_FRAME_BYTES,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_SILENT_MS,
  DEVICE_SOCKET_PATH,
  type ConsentParams,
  type DeviceFrame,
  type DeviceOp,
  type ServerFrame,
  DEVICE_SHELL_ENV_MAX,
  DEVICE_SHELL_ENV_NAMES,
} from "../../../lib/device-protocol";
import { capabilities } from "./capabilities";
import type { AgentConfig } from "./config";
import { ConsentDesk } from "./consent";
import { DeviceFiles, FileRefusal } from "./files";
import { say, warn } from "./log";
import { Shells } from "./shell";

/** Output queued on the socket beyond this waits (the terminal's output is paused). */
const MAX_BUFFERED = 4 * 1024 * 1024;
const SESSION = /^[A-Za-z0-9_-]{1,64}$/;

class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function socketUrl(base: string): string {
  const url = new URL(base);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = url.pathname.replace(/\/+$/, "") + DEVICE_SOCKET_PATH;
  url.search = "";
  return url.toString();
}

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

export class DeviceAgent {
  private ws: WebSocket | null = null;
  private readonly files: DeviceFiles;
  private readonly shells: Shells;
  private readonly consent = new ConsentDesk();
  private backoffMs = 1_000;
  private stopped = false;
  private lastFrameAt = 0;
  private watchdog: NodeJS.Timeout | null = null;
  private finish: (code: number) => void = () => {};

  constructor(private readonly config: AgentConfig) {
    this.files = new DeviceFiles(config.folder);
    this.shells = new Shells(config.folder, {
      data: (session, data) => this.send({ t: "shell.data", session, data }),
      exit: (session, code) => {
        say(`Terminal ${session} ended${code === null ? "" : ` (exit code ${code})`}`);
        this.send({ t: "shell.exit", session, code });
      },
      roomFor: () => (this.ws?.bufferedAmount ?? 0) < MAX_BUFFERED,
    });
  }

  /** Runs until the device is refused for good (exit code 2) or stop() is called (0). */
  run(): Promise<number> {
    const caps = capabilities({ commands: this.config.commands, expose: this.config.expose });
    say(`Rein device agent ${caps.agentVersion}: device ${this.config.name} (${this.config.deviceId}) of ${this.config.url}`);
    say(`Rein's runs may read and write files in ${this.config.folder} and nowhere else on this computer`);
    if (this.config.commands === "none")
      say("Commands: none. Rein cannot run anything here (pair again with --commands any to allow a terminal)");
    else if (caps.confined)
      say("Commands: any, in a terminal confined by bubblewrap: the system read-only, your home hidden, only that folder writable");
    else
      warn(
        `Commands: any, NOT confined (${process.platform === "linux" ? "bubblewrap is not installed or cannot make a sandbox here" : "no sandbox on this system"}): a terminal can reach everything your account can`,
      );
    say("Each run asks you here before it uses this device, unless you chose auto-consent for its team. Ctrl-C stops the agent.");
    return new Promise((resolve) => {
      this.finish = resolve;
      this.connect();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.shells.closeAll();
    this.files.stop();
    this.consent.close();
    this.ws?.close(1000, "The agent stopped");
    this.finish(0);
  }

  private connect() {
    if (this.stopped) return;
    const url = socketUrl(this.config.url);
    say(`Connecting to ${url}`);
    const ws = new WebSocket(url);
    this.ws = ws;
    let welcomed = false;
    ws.addEventListener("open", () => {
      this.lastFrameAt = Date.now();
      const caps = capabilities({ commands: this.config.commands, expose: this.config.expose });
      this.send({ t: "hello", token: this.config.token, version: DEVICE_PROTOCOL_VERSION, capabilities: caps });
    });
    ws.addEventListener("message", (event) => {
      this.lastFrameAt = Date.now();
      if (typeof event.data !== "string" || event.data.length > DEVICE_MAX_FRAME_BYTES) return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(event.data) as ServerFrame;
      } catch {
        return;
      }
      if (frame.t === "welcome") {
        welcomed = true;
        this.backoffMs = 1_000;
        this.consent.setAutoTeams(frame.autoConsentTeamIds);
        say(`Connected: Rein knows this device as ${frame.name}`);
      } else if (frame.t === "settings") {
        this.consent.setAutoTeams(frame.autoConsentTeamIds);
        say(`Auto-consent now covers ${frame.autoConsentTeamIds.length} team(s)`);
      } else if (frame.t === "ping") this.send({ t: "pong" });
      else if (frame.t === "req") void this.serve(frame.id, frame.op, frame.params);
    });
    ws.addEventListener("error", () => undefined);
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.watchdog) clearInterval(this.watchdog);
      this.shells.closeAll();
      if (this.stopped) return;
      if (event.code === DEVICE_CLOSE.unauthorized || event.code === DEVICE_CLOSE.revoked) {
        warn(`Rein refused this device: ${event.reason || "unknown or revoked"}. Pair it again with rein-device pair.`);
        this.stopped = true;
        this.files.stop();
        this.consent.close();
        return this.finish(2);
      }
      const wait = Math.round(this.backoffMs * (0.5 + Math.random() * 0.5));
      this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
      say(
        `${welcomed ? "Disconnected" : "Could not connect"}${event.reason ? ` (${event.reason})` : ""}; trying again in ${(wait / 1000).toFixed(1)} s`,
      );
      setTimeout(() => this.connect(), wait);
    });
    // Rein pings every 15 s: a connection silent for longer than 45 s is dead, even if the system has not noticed.
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (this.ws === ws && ws.readyState === ws.OPEN && Date.now() - this.lastFrameAt > DEVICE_SILENT_MS) {
        say("Rein has been silent for too long; reconnecting");
        ws.close(4000, "silent");
      }
    }, 5_000);
  }

  private send(frame: DeviceFrame) {
    const ws = this.ws;
    if (!ws || ws.readyState !== ws.OPEN) return;
    let text = JSON.stringify(frame);
    if (text.length > DEVICE_MAX_FRAME_BYTES - 1024 && frame.t === "res")
      text = JSON.stringify({
        t: "res",
        id: frame.id,
        ok: false,
        error: { code: "TOO_LARGE", message: "The answer is larger than a frame may be" },
      });
    ws.send(text);
  }

  private async serve(id: unknown, op: unknown, params: unknown) {
    if (!isInt(id, 1, Number.MAX_SAFE_INTEGER)) return;
    try {
      const result = await this.handle(op as DeviceOp, (params ?? {}) as Record<string, unknown>);
      this.send({ t: "res", id, ok: true, result });
    } catch (err) {
      const code = err instanceof Refusal || err instanceof FileRefusal ? err.code : "FAILED";
      const message = err instanceof Error ? err.message : String(err);
      if (code === "FAILED") warn(`A request failed: ${message}`);
      this.send({ t: "res", id, ok: false, error: { code, message: message.slice(0, 1000) } });
    }
  }

  private commandsAllowed() {
    if (this.config.commands !== "any")
      throw new Refusal(
        "COMMANDS_OFF",
        "Its owner allows no commands on this device (they pair it with --commands any to allow a terminal)",
      );
  }

  private session(p: Record<string, unknown>): string {
    if (typeof p.session !== "string" || !SESSION.test(p.session))
      throw new Refusal("BAD_REQUEST", "A terminal's session id is 1 to 64 letters, digits, _ or -");
    return p.session;
  }

  private async handle(op: DeviceOp, p: Record<string, unknown>): Promise<unknown> {
    switch (op) {
      case "consent": {
        const team = (p.team ?? {}) as { id?: unknown; name?: unknown };
        const q: ConsentParams = {
          runId: String(p.runId ?? "").slice(0, 100),
          agent: String(p.agent ?? "").slice(0, 100),
          goal: String(p.goal ?? "").slice(0, 2000),
          team: { id: String(team.id ?? ""), name: String(team.name ?? "").slice(0, 100) },
          requester: String(p.requester ?? "").slice(0, 200),
        };
        return this.consent.ask(q);
      }
      case "files": {
        const target =
          typeof p.params === "object" && p.params && typeof (p.params as { path?: unknown }).path === "string"
            ? ` ${(p.params as { path: string }).path}`
            : "";
        say(`Files: ${String(p.op)}${target}`);
        return this.files.request(p.op, p.params);
      }
      case "shell.open": {
        this.commandsAllowed();
        const session = this.session(p);
        if (!isInt(p.cols, 1, 1000) || !isInt(p.rows, 1, 1000))
          throw new Refusal("BAD_REQUEST", "A terminal's size is 1 to 1000 columns and rows");
        this.shells.open(session, p.cols, p.rows, shellEnv(p.env));
        say(`Terminal ${session} opened in ${this.config.folder}${this.shells.confined ? " (confined)" : " (NOT confined)"}`);
        return { confined: this.shells.confined };
      }
      case "shell.write": {
        this.commandsAllowed();
        if (typeof p.data !== "string") throw new Refusal("BAD_REQUEST", "shell.write needs data");
        const session = this.session(p);
        say(`Terminal ${session}: ${p.data.length} character(s) typed`);
        this.shells.write(session, p.data);
        return {};
      }
      case "shell.resize": {
        this.commandsAllowed();
        if (!isInt(p.cols, 1, 1000) || !isInt(p.rows, 1, 1000))
          throw new Refusal("BAD_REQUEST", "A terminal's size is 1 to 1000 columns and rows");
        return { applied: this.shells.resize(this.session(p), p.cols, p.rows) };
      }
      case "shell.close": {
        const session = this.session(p);
        say(`Terminal ${session} closed by Rein`);
        this.shells.close(session);
        return {};
      }
      default:
        throw new Refusal("UNKNOWN_OP", `This agent does not know the operation ${String(op).slice(0, 40)}; it may be older than Rein`);
    }
  }
}

/** Rein's variables for a shell: only the names the protocol allows, short values without NUL; anything else is refused. */
function shellEnv(raw: unknown): Record<string, string> {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Refusal("BAD_REQUEST", "A terminal's env is an object");
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(DEVICE_SHELL_ENV_NAMES as readonly string[]).includes(name))
      throw new Refusal("BAD_REQUEST", `Rein may not set ${name.slice(0, 40)} for a terminal on this device`);
    if (typeof value !== "string" || value.length > DEVICE_SHELL_ENV_MAX || value.includes("\0"))
      throw new Refusal("BAD_REQUEST", `The value of ${name} is not one a terminal takes`);
    out[name] = value;
  }
  return out;
}
