// T4's runs on people's devices (docs/devices.md#a-run-on-a-device), as the
// tier controller uses them: which device a run gets (one of the person who
// launched it, online now), the owner's consent on the device, the run's
// terminal there (the device's shell made the run's terminal pod), its file
// tools through the device's file service (rooted at the owner's folder: the
// device refuses anything outside, whatever Rein asks), and a device that goes
// offline and comes back. Nothing of the owner's folder is copied to Rein.
import { z } from "zod";
import type { Db } from "@/server/db";
import { DEVICE_MAX_FILE_BYTES } from "@/lib/device-protocol";
import { DEFAULT_LIMITS, type PodLimits } from "@/server/compute";
import { DeviceError, DevicePod, type DeviceAccess } from "@/server/devices";
import { ToolError, Workspace, type TerminalAccess } from "@/server/tools";
import type { TerminalPods } from "./environments";

export interface DeviceCandidate {
  id: string;
  name: string;
  ownerId: string;
  /** The owner lets Rein open a terminal there (--commands any). */
  commands: boolean;
  /** Its terminal runs in bubblewrap. */
  confined: boolean;
}

export type DeviceChoice = { ok: true; device: DeviceCandidate } | { ok: false; reason: string };

export interface DeviceRunsDeps {
  db: Db;
  /** The hub of this process, or a worker's relay to the web processes holding the devices' sockets. */
  hub: DeviceAccess;
  terminals: TerminalPods & Required<Pick<TerminalPods, "adopt">>;
  workspaceFor(runId: string): Workspace;
  limits?: PodLimits;
  /** How long a device that went offline is waited for before the run pauses (REIN_MACHINE_GRACE_SEC). */
  graceMs?: number;
}

interface Session {
  device: DeviceCandidate;
  pod: DevicePod | null;
}

const DEFAULT_GRACE_MS = 60_000;
const MAX_CANDIDATES = 50;

function capabilitiesOf(json: string): { commands: boolean; confined: boolean } {
  try {
    const c = JSON.parse(json) as { commands?: unknown; confined?: unknown };
    return { commands: c.commands === "any", confined: c.confined === true };
  } catch {
    return { commands: false, confined: false };
  }
}

/** A device's refusal as the agent sees it: the device's own code (OUTSIDE_WORKSPACE, NOT_FOUND…) where it gave one. */
export function toolErrorOf(err: unknown): never {
  if (err instanceof DeviceError) throw new ToolError(err.reason ?? err.code, err.message);
  throw err;
}

// What the device's file service answers, checked before Rein's file tools trust it: the
// hub passes a `files` result on as it came (any JSON within the frame bound), and a
// hostile agent's `{"data":{"length":3e8}}` would have Buffer.from fill 300 MB on the
// event loop; non-strings, negative sizes, trees larger than asked for are refused too.
const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Num = z.number().finite();
/** base64 of at most DEVICE_MAX_FILE_BYTES. */
const Base64 = z
  .string()
  .max(Math.ceil(DEVICE_MAX_FILE_BYTES / 3) * 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);
const RelPath = z.string().max(4096);
const FileInfoSchema = z.object({ kind: z.enum(["file", "dir", "symlink", "other"]), size: Count, mode: Count, mtimeMs: Num }).strict();
/** Folders deeper than this are no folder a person has (a path of at most 4 KiB): a tree nested deeper would overflow the stack of whatever walks it. */
const MAX_TREE_DEPTH = 1024;
const RESULTS: Record<string, z.ZodType> = {
  stat: FileInfoSchema.nullable(),
  read: z.object({ data: Base64, size: Count, mode: Count, mtimeMs: Num }).strict(),
  readLines: z.object({ data: Base64, totalLines: Count, size: Count }).strict(),
  write: z.object({ created: z.boolean(), hash: z.string().regex(/^[0-9a-f]{64}$/), bytes: Count }).strict(),
  walk: z.object({ files: z.array(RelPath).max(100_000), truncated: z.boolean() }).strict(),
  ensureLine: z.object({ added: z.boolean() }).strict(),
  mkdir: z.object({}).strict(),
  remove: z.object({}).strict(),
};

/** A tree answer: the shape of the file service's, at most `limit` entries (checked without recursion: a deep tree is no stack overflow). */
function checkTree(value: unknown, limit: number): boolean {
  const top = z
    .object({ entries: z.array(z.unknown()), count: Count, truncated: z.boolean() })
    .strict()
    .safeParse(value);
  if (!top.success) return false;
  const Node = z.union([
    z.object({ type: z.literal("dir"), name: RelPath, path: RelPath, children: z.array(z.unknown()) }).strict(),
    z.object({ type: z.literal("file"), name: RelPath, path: RelPath, size: Count, symlink: z.literal(true).optional() }).strict(),
  ]);
  const stack: Array<{ children: unknown[]; depth: number }> = [{ children: top.data.entries, depth: 1 }];
  let seen = 0;
  while (stack.length) {
    const { children, depth } = stack.pop()!;
    if (depth > MAX_TREE_DEPTH) return false;
    for (const entry of children) {
      if (++seen > limit) return false;
      const node = Node.safeParse(entry);
      if (!node.success) return false;
      if (node.data.type === "dir") stack.push({ children: node.data.children, depth: depth + 1 });
    }
  }
  return top.data.count === seen;
}

/** The answer of a `files` op, or DEVICE_FAILED when it is not what the file service answers. */
export function checkFilesAnswer(op: string, params: Record<string, unknown>, result: unknown, deviceName: string): unknown {
  const ok =
    op === "tree"
      ? checkTree(result, typeof params.limit === "number" ? params.limit : 0)
      : (RESULTS[op]?.safeParse(result).success ?? false) &&
        (op !== "walk" || typeof params.limit !== "number" || (result as { files: unknown[] }).files.length <= params.limit);
  if (!ok) throw new ToolError("DEVICE_FAILED", `The device ${deviceName} answered the file operation ${op} with something else`);
  return result;
}

/**
 * A T4 run's workspace as its file tools see it: the owner's folder on the
 * device, through its file service. Rein runs no programs of its own there
 * (git tools, search): the shell is the way.
 */
export class DeviceWorkspace extends Workspace {
  constructor(
    base: Workspace,
    private readonly hub: DeviceAccess,
    private readonly deviceId: string,
  ) {
    super(base.root, base.outputsDir, base.snapshotsDir);
  }
  protected override async ask<T>(op: string, params: Record<string, unknown>): Promise<T> {
    const result = await this.hub.request(this.deviceId, "files", { op, params } as never).catch(toolErrorOf);
    return checkFilesAnswer(op, params, result, this.deviceId) as T;
  }
  private refuse(): never {
    throw new ToolError(
      "NOT_ON_DEVICE",
      "The run is on T4 (a person's device): Rein runs no programs of its own in the owner's folder (git tools, search); use the shell",
    );
  }
  override async run(): ReturnType<Workspace["run"]> {
    this.refuse();
  }
  override spawn(): ReturnType<Workspace["spawn"]> {
    this.refuse();
  }
  override async importFile(): Promise<string> {
    this.refuse();
  }
}

export class DeviceRuns {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly deps: DeviceRunsDeps) {}

  get hub(): DeviceAccess {
    return this.deps.hub;
  }

  /** The device a run launched by `ownerId` for `team` would get now: one of that person's, online, for that team or any. */
  async choose(ownerId: string | null, team: { id: string | null; name: string }, ownerName: string): Promise<DeviceChoice> {
    if (!ownerId) return { ok: false, reason: "The run was not launched by a person, and T4 is a person's own device" };
    const rows = await this.deps.db.device.findMany({
      where: { ownerId, revokedAt: null, OR: [{ teamId: null }, ...(team.id ? [{ teamId: team.id }] : [])] },
      select: { id: true, name: true, ownerId: true, capabilities: true },
      orderBy: { lastSeenAt: "desc" },
      take: MAX_CANDIDATES,
    });
    const online = rows
      .filter((r) => this.deps.hub.isOnline(r.id))
      .map((r) => ({ id: r.id, name: r.name, ownerId: r.ownerId, ...capabilitiesOf(r.capabilities) }));
    // One that lets Rein open a terminal first: the agent's shell works there.
    const device = online.find((d) => d.commands) ?? online[0];
    if (!device)
      return {
        ok: false,
        reason: `No device of ${ownerName} is online for team ${team.name}; pair one in Settings › Devices and start it with rein-device run`,
      };
    return { ok: true, device };
  }

  session(runId: string): Session | undefined {
    return this.sessions.get(runId);
  }

  /** The owner's answer on the device (or their auto-consent for the team); false: they said no, or did not answer. */
  async consent(
    device: DeviceCandidate,
    params: { runId: string; agent: string; goal: string; team: { id: string; name: string }; requester: string },
  ) {
    return this.deps.hub.request(device.id, "consent", params);
  }

  /** The run is on the device from now on: its terminal opens there when the owner allows commands. */
  async enter(runId: string, device: DeviceCandidate): Promise<void> {
    this.sessions.set(runId, { device, pod: null });
    if (device.commands) await this.pod(runId);
  }

  /** The run's terminal on the device, opened again when it ended (the device went offline and came back). */
  async pod(runId: string): Promise<DevicePod | null> {
    const s = this.sessions.get(runId);
    if (!s) return null;
    if (s.pod?.alive() && this.deps.terminals.get(runId) === s.pod) return s.pod;
    if (!this.deps.hub.isOnline(s.device.id)) return null;
    const pod = await DevicePod.open({
      hub: this.deps.hub,
      deviceId: s.device.id,
      deviceName: s.device.name,
      workspaceDir: this.deps.workspaceFor(runId).root,
      confined: s.device.confined,
      limits: this.deps.limits ?? DEFAULT_LIMITS,
    });
    s.pod = pod;
    await this.deps.terminals.adopt(runId, pod);
    return pod;
  }

  /** Whether the device comes online within the grace period (now: at once). */
  waitOnline(runId: string): Promise<boolean> {
    const s = this.sessions.get(runId);
    if (!s) return Promise.resolve(false);
    const { hub } = this.deps;
    if (hub.isOnline(s.device.id)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(hub.isOnline(s.device.id));
      }, this.deps.graceMs ?? DEFAULT_GRACE_MS);
      const off = hub.on("online", (d) => {
        if (d.id !== s.device.id) return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }

  /** The run leaves the device: its terminal there closes. The owner's folder stays as the run left it. */
  async leave(runId: string): Promise<DeviceCandidate | null> {
    const s = this.sessions.get(runId);
    if (!s) return null;
    this.sessions.delete(runId);
    if (s.pod && this.deps.terminals.get(runId) === s.pod) await this.deps.terminals.release(runId).catch(() => undefined);
    await s.pod?.dispose("the run left the device").catch(() => undefined);
    return s.device;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.leave(id)));
  }
}

/** What the shell on a device needs from the tier controller. */
export interface DeviceTerminalHost {
  touched(runId: string): void;
  /** The device is gone for longer than the grace period: the run pauses with `reason` after this step. */
  deviceLost(runId: string, reason: string): void;
}

const droppedWords = (name: string) =>
  `The device ${name} went offline while the command ran: it may or may not have finished there, and it is not run again. ` +
  `The device is back; check what the command did before you go on.`;

/** The shell tool on T4: each command at the device's terminal; a device offline is waited for within the grace period. */
export function deviceTerminal(host: DeviceTerminalHost, devices: DeviceRuns, runId: string): TerminalAccess {
  return {
    async exec(command, options) {
      host.touched(runId);
      const s = devices.session(runId);
      if (!s) throw new ToolError("DEVICE_LOST", "The run is on no device");
      const name = s.device.name;
      if (!s.device.commands)
        throw new ToolError(
          "DEVICE_REFUSED",
          `The owner of ${name} lets Rein use its folder but run no commands there (rein-device --commands none)`,
        );
      const start = () =>
        devices.pod(runId).catch((err: Error) => {
          throw new ToolError("DEVICE_UNAVAILABLE", `The terminal on ${name} could not start: ${err.message}`);
        });
      const pod = (await start()) ?? ((await devices.waitOnline(runId)) ? await start() : null);
      if (!pod) {
        const reason = `The device ${name} is offline and did not come back in time: the command was not run`;
        host.deviceLost(runId, reason);
        throw new ToolError("DEVICE_LOST", `${reason}. The run pauses; when it resumes, Rein opens a terminal there again.`);
      }
      try {
        const result = await pod.exec(command, options);
        host.touched(runId);
        return result;
      } catch (err) {
        if (devices.hub.isOnline(s.device.id) && pod.alive()) throw err;
        // The terminal ended with the device's connection.
        if (await devices.waitOnline(runId)) throw new ToolError("DEVICE_DROPPED", droppedWords(name));
        host.deviceLost(runId, `The device ${name} went offline while a command ran`);
        throw new ToolError(
          "DEVICE_LOST",
          `The device ${name} went offline while the command ran: it may or may not have finished there, and it is not run again. The run pauses.`,
        );
      }
    },
  };
}
