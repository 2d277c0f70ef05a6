// The extension registry (docs/extensions.md): a proposed package is
// checked, stored, and put through its gate (build + all its own tests in the
// sandbox); one that passes is installed, after a person's approval when the
// admin setting asks for one, and its tools are hot-loaded into the
// ToolRegistry for every agent. A newer version supersedes the installed one.
// Every transition is audited. The package's code runs only in the sandbox.
import { DomainError } from "@/server/errors";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { roleAtLeast, type Actor, type Role } from "@/server/identity";
import type { RequestChange, TtlLadder } from "@/server/hitl";
import type { ToolDefinition, ToolRegistry } from "@/server/tools";
import type { RuntimeCapability } from "../sandbox";
import type { ActiveSkill } from "../skills/library";
import { askApproval, EXTENSION_SLOT } from "./approval";
import { extensionToolDefinitions } from "./definition";
import { runExtensionGate, type GateResult } from "./gate";
import { loadExtension, type Registered } from "./load";
import { parseExtensionPackage, type ExtensionPackage } from "./package";
import { canExtensionGo, compareVersions, type ExtensionState } from "./states";

export class ExtensionError extends DomainError {
  constructor(
    code: "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT",
    message: string,
    readonly problems: string[] = [],
  ) {
    super(code, message);
    this.name = "ExtensionError";
  }
}

/** Who acts: a person, or Rein itself (an approval decided in the inbox, a promotion). */
export interface ExtensionActor {
  id: string;
  name: string;
}

/** An installed extension as the registry holds it in memory. */
export interface InstalledExtension {
  id: string;
  name: string;
  version: string;
  pkg: ExtensionPackage;
  registered: Registered;
  tools: string[];
}

export interface ExtensionRegistryDeps {
  db: Db;
  registry: ToolRegistry;
  /** Capabilities an admin allows (Settings → Improvements), asked at each call. */
  allowedCapabilities(): Promise<RuntimeCapability[]>;
  /** The admin setting "extensions require approval". */
  requireApproval(): Promise<boolean>;
  /** A tool name taken by something other than an extension (a built-in tool); a live runtime tool is not reserved. */
  reserved(name: string): boolean;
  /** A live runtime tool of this name gives way to the extension's tool. */
  yieldName?(name: string): void;
  onRequestCreated?: (change: RequestChange) => void;
  /** The gate; tests pass their own. */
  gate?: (pkg: ExtensionPackage) => Promise<GateResult>;
  ladder?: TtlLadder;
  now?: () => Date;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export const REGISTRY_SELECT = {
  id: true,
  name: true,
  version: true,
  state: true,
  stateReason: true,
  manifest: true,
  files: true,
  capabilities: true,
  testsResult: true,
  authorRunId: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
} as const;

type Row = {
  id: string;
  name: string;
  version: string;
  state: string;
  manifest: string;
  files: string;
  createdById: string | null;
  authorRunId: string | null;
};

/** Who may do what: switching one off or on needs an approver, proposing or removing one an admin (extensions serve every team). */
export const EXTENSION_ACTION_ROLE = {
  propose: "admin",
  approve: "admin",
  disable: "approver",
  enable: "approver",
  remove: "admin",
} as const satisfies Record<string, Role>;
export type ExtensionAction = keyof typeof EXTENSION_ACTION_ROLE;

export function packageOf(row: Pick<Row, "manifest" | "files">): ExtensionPackage {
  return { manifest: JSON.parse(row.manifest), files: JSON.parse(row.files) } as ExtensionPackage;
}

/** The gate's result as stored: the build's problems or what it registered, and every test. */
function storedResult(gate: GateResult) {
  const { build, ...rest } = gate;
  return {
    ...rest,
    build: build.ok ? { ok: true, durationMs: build.durationMs } : { ok: false, problems: build.problems, durationMs: build.durationMs },
  };
}

export class ExtensionRegistry {
  private readonly installed = new Map<string, InstalledExtension>();
  /** Tool name → the extension name that registered it. */
  private readonly toolOwners = new Map<string, string>();

  constructor(private readonly deps: ExtensionRegistryDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  /** Loads every installed extension (Improve.start); one that no longer loads is logged and left out. */
  async start(): Promise<number> {
    const rows = await this.deps.db.extension.findMany({
      where: { state: "installed" },
      select: REGISTRY_SELECT,
      orderBy: { createdAt: "asc" },
    });
    for (const row of rows) {
      try {
        const pkg = packageOf(row);
        const build = await loadExtension(pkg);
        if (!build.ok) throw new Error(build.problems.join("; "));
        this.hotLoad(row.id, pkg, build.registered);
      } catch (err) {
        this.deps.log.error(`extension ${row.name} v${row.version} could not be loaded`, err);
      }
    }
    return this.installed.size;
  }

  stop(): void {
    for (const name of [...this.installed.keys()]) this.unload(name);
  }

  /** The tool names of every installed extension (offered to every agent). */
  toolNames(): string[] {
    return [...this.toolOwners.keys()];
  }

  list(): InstalledExtension[] {
    return [...this.installed.values()];
  }

  /** The skills of the installed extensions, as the skill library holds skills. */
  skills(): ActiveSkill[] {
    return this.list().flatMap((x) =>
      x.registered.skills.map((s) => ({
        id: `extension:${x.id}:${s.name}`,
        name: s.name,
        version: Number(x.version.split(".")[0]) || 0,
        description: s.description,
        body: s.body,
        scopeAgents: s.scope.agents,
        scopeTeams: s.scope.teams,
        tags: s.tags,
        extension: `${x.name} v${x.version}`,
      })),
    );
  }

  /** Installed extensions listening to an event type. */
  listening(type: string): InstalledExtension[] {
    return this.list().filter((x) => (x.registered.hooks ?? []).includes(type));
  }

  isExtensionTool(name: string): boolean {
    return this.toolOwners.has(name);
  }

  /**
   * Validates, stores and gates a package. A package whose gate fails is never
   * installed; one that passes waits for approval when the setting asks, else
   * it is installed at once. Returns the row's id and final state.
   */
  async propose(
    input: unknown,
    from: { authorRunId?: string; createdById?: string; by: ExtensionActor; channel: string },
  ): Promise<{ id: string; state: ExtensionState; reason: string | null }> {
    const parsed = parseExtensionPackage(input);
    if (!parsed.ok)
      throw new ExtensionError("INVALID_INPUT", `The extension package is not valid: ${parsed.problems.join("; ")}`, parsed.problems);
    const { pkg } = parsed;
    const { name, version } = pkg.manifest;
    const { db } = this.deps;
    const existing = await db.extension.findUnique({ where: { name_version: { name, version } }, select: { id: true, state: true } });
    if (existing)
      throw new ExtensionError("CONFLICT", `${name} v${version} was proposed already (${existing.state}); propose a new version`);
    const current = await db.extension.findFirst({ where: { name, state: { in: ["installed", "disabled"] } }, select: { version: true } });
    if (current && compareVersions(version, current.version) <= 0) {
      throw new ExtensionError("CONFLICT", `${name} v${current.version} is installed; propose a version newer than ${current.version}`);
    }
    const taken = this.takenNames(pkg);
    if (taken.length)
      throw new ExtensionError(
        "CONFLICT",
        `The tool name${taken.length > 1 ? "s" : ""} ${taken.join(", ")} ${taken.length > 1 ? "are" : "is"} taken; name the tools differently`,
      );

    let row;
    try {
      row = await db.extension.create({
        data: {
          name,
          version,
          state: "proposed",
          manifest: JSON.stringify(pkg.manifest),
          files: JSON.stringify(pkg.files),
          capabilities: JSON.stringify(pkg.manifest.capabilities),
          authorRunId: from.authorRunId ?? null,
          createdById: from.createdById ?? null,
        },
        select: { id: true },
      });
    } catch {
      throw new ExtensionError("CONFLICT", `${name} v${version} was proposed already; propose a new version`);
    }
    const subject = `${name} v${version}`;
    await recordAudit(db, {
      kind: "extension.proposed",
      actorId: from.by.id,
      actorName: from.by.name,
      channel: from.channel,
      runId: from.authorRunId ?? null,
      subject,
      toState: "proposed",
      detail: { extensionId: row.id, capabilities: pkg.manifest.capabilities },
    });
    await this.move(row.id, "proposed", "testing", from.by, from.channel, null);

    let gate: GateResult;
    try {
      gate = await (this.deps.gate ?? runExtensionGate)(pkg);
    } catch (err) {
      const reason = `The gate could not run: ${err instanceof Error ? err.message : String(err)}`;
      await this.move(row.id, "testing", "failed", from.by, from.channel, reason);
      return { id: row.id, state: "failed", reason };
    }
    await db.extension.update({ where: { id: row.id }, data: { testsResult: JSON.stringify(storedResult(gate)) } });
    if (!gate.ok || !gate.build.ok) {
      const reason = `The gate failed: ${gate.summary}`;
      await this.move(row.id, "testing", "failed", from.by, from.channel, reason);
      return { id: row.id, state: "failed", reason };
    }
    if (await this.deps.requireApproval()) {
      const reason = `The gate passed: ${gate.summary} An admin other than the proposer approves the install.`;
      await this.move(row.id, "testing", "awaiting_approval", from.by, from.channel, reason);
      await askApproval({ ...this.deps, now: () => this.now() }, row.id, pkg, gate);
      return { id: row.id, state: "awaiting_approval", reason };
    }
    await this.install(row.id, "testing", from.by, from.channel, gate.build.registered, `The gate passed: ${gate.summary}`);
    return { id: row.id, state: "installed", reason: null };
  }

  /** Tool names of the package that something else holds: a built-in tool, or another extension's tool. */
  private takenNames(pkg: ExtensionPackage): string[] {
    return (pkg.manifest.tools ?? []).filter((t) => {
      const owner = this.toolOwners.get(t);
      if (owner) return owner !== pkg.manifest.name;
      return this.deps.reserved(t);
    });
  }

  /** A person decided an approval request in the inbox: approved installs, anything else that closes it rejects. */
  async onRequestChange(change: RequestChange): Promise<void> {
    if (!["APPROVED", "REJECTED", "EXPIRED", "CANCELED"].includes(change.state)) return;
    const request = await this.deps.db.humanRequest.findUnique({
      where: { id: change.requestId },
      select: { slot: true, payload: true, decidedById: true },
    });
    if (request?.slot !== EXTENSION_SLOT) return;
    const id = (JSON.parse(request.payload) as { args?: { extensionId?: string } }).args?.extensionId;
    if (!id) return;
    const who = request.decidedById
      ? await this.deps.db.user.findUnique({ where: { id: request.decidedById }, select: { id: true, name: true } })
      : null;
    const by = { id: who?.id ?? "system", name: who?.name ?? "Rein" };
    const row = await this.deps.db.extension.findUnique({ where: { id }, select: { state: true } });
    if (row?.state !== "awaiting_approval") return;
    if (change.state === "APPROVED") {
      try {
        await this.approveRow(id, by, "inbox");
      } catch (err) {
        if (!(err instanceof ExtensionError && err.code === "CONFLICT")) throw err;
        await this.move(id, "awaiting_approval", "rejected", by, "inbox", err.message);
      }
    } else await this.move(id, "awaiting_approval", "rejected", by, "inbox", `The approval request was ${change.state.toLowerCase()}`);
  }

  /** An admin approves from the extension's page; never the person who proposed it (or launched the run that did). */
  async approve(actor: Actor, id: string, channel: string): Promise<void> {
    this.requireRole(actor, "approve");
    const row = await this.row(id);
    if (row.state !== "awaiting_approval") throw new ExtensionError("CONFLICT", `A ${row.state} extension cannot be approved`);
    if (await this.isRequester(actor.userId, row))
      throw new ExtensionError("FORBIDDEN", "You proposed this extension (or launched the run that did); another admin must approve it");
    await this.approveRow(id, { id: actor.userId, name: actor.name }, channel);
  }

  async reject(actor: Actor, id: string, channel: string, reason?: string): Promise<void> {
    this.requireRole(actor, "approve");
    const row = await this.row(id);
    if (row.state !== "awaiting_approval") throw new ExtensionError("CONFLICT", `A ${row.state} extension cannot be rejected`);
    await this.move(
      id,
      "awaiting_approval",
      "rejected",
      { id: actor.userId, name: actor.name },
      channel,
      reason ? `Rejected: ${reason}` : "Rejected",
    );
  }

  private async isRequester(userId: string, row: Row): Promise<boolean> {
    if (row.createdById === userId) return true;
    if (!row.authorRunId) return false;
    const run = await this.deps.db.run.findUnique({ where: { id: row.authorRunId }, select: { createdById: true } });
    return run?.createdById === userId;
  }

  private async approveRow(id: string, by: ExtensionActor, channel: string): Promise<void> {
    const row = await this.row(id);
    const pkg = packageOf(row);
    const build = await loadExtension(pkg);
    if (!build.ok) {
      await this.move(id, "awaiting_approval", "failed", by, channel, `It no longer builds: ${build.problems.join("; ")}`);
      return;
    }
    await this.install(id, "awaiting_approval", by, channel, build.registered, `Approved by ${by.name}`);
  }

  async disable(actor: Actor, id: string, channel: string, reason?: string): Promise<void> {
    this.requireRole(actor, "disable");
    const row = await this.row(id);
    await this.move(
      id,
      row.state as ExtensionState,
      "disabled",
      { id: actor.userId, name: actor.name },
      channel,
      reason ? `Disabled: ${reason}` : `Disabled by ${actor.name}`,
    );
    this.unloadIf(row.name, id);
  }

  async enable(actor: Actor, id: string, channel: string, reason?: string): Promise<void> {
    this.requireRole(actor, "enable");
    const row = await this.row(id);
    if (row.state !== "disabled") throw new ExtensionError("CONFLICT", `A ${row.state} extension cannot be enabled`);
    const other = await this.deps.db.extension.findFirst({
      where: { name: row.name, state: "installed", NOT: { id } },
      select: { version: true },
    });
    if (other) throw new ExtensionError("CONFLICT", `Version ${other.version} of ${row.name} is installed; disable it first`);
    const pkg = packageOf(row);
    const build = await loadExtension(pkg);
    if (!build.ok) throw new ExtensionError("CONFLICT", `${row.name} v${row.version} no longer builds: ${build.problems.join("; ")}`);
    await this.install(
      id,
      "disabled",
      { id: actor.userId, name: actor.name },
      channel,
      build.registered,
      reason ? `Enabled: ${reason}` : `Enabled by ${actor.name}`,
    );
  }

  async remove(actor: Actor, id: string, channel: string, reason?: string): Promise<void> {
    this.requireRole(actor, "remove");
    const row = await this.row(id);
    await this.move(
      id,
      row.state as ExtensionState,
      "removed",
      { id: actor.userId, name: actor.name },
      channel,
      reason ? `Removed: ${reason}` : `Removed by ${actor.name}`,
    );
    this.unloadIf(row.name, id);
  }

  private requireRole(actor: Actor, action: ExtensionAction) {
    const needed = EXTENSION_ACTION_ROLE[action];
    // Extensions serve every team: the person's own role counts, not one team's.
    if (!roleAtLeast(actor.role, needed))
      throw new ExtensionError("FORBIDDEN", `To ${action} an extension you need the ${needed} role; you are ${actor.role}`);
  }

  private async row(id: string): Promise<Row> {
    const row = await this.deps.db.extension.findUnique({ where: { id }, select: REGISTRY_SELECT });
    if (!row) throw new ExtensionError("NOT_FOUND", `There is no extension ${id}`);
    return row;
  }

  /** Installs a row: an older installed or disabled version is superseded, the tools are hot-loaded. */
  private async install(
    id: string,
    from: ExtensionState,
    by: ExtensionActor,
    channel: string,
    registered: Registered,
    reason: string,
  ): Promise<void> {
    const row = await this.row(id);
    const pkg = packageOf(row);
    const taken = this.takenNames(pkg);
    if (taken.length) {
      await this.move(id, from, "failed", by, channel, `Its tool names are taken: ${taken.join(", ")}`);
      return;
    }
    const older = await this.deps.db.extension.findMany({
      where: { name: row.name, state: { in: ["installed", "disabled"] }, NOT: { id } },
      select: { id: true, state: true, version: true },
    });
    // Two versions proposed while an older one was installed: the second approved never downgrades the first.
    const newer = older.find((o) => compareVersions(o.version, row.version) >= 0);
    if (newer)
      throw new ExtensionError(
        "CONFLICT",
        `${row.name} v${newer.version} is installed, which is not older than v${row.version}; reject this version`,
      );
    await this.move(id, from, "installed", by, channel, reason);
    for (const o of older) await this.move(o.id, o.state as ExtensionState, "superseded", by, channel, `Superseded by v${row.version}`);
    this.hotLoad(id, pkg, registered);
  }

  /** Puts the package's tools in the ToolRegistry; a newer version replaces the older one under the same names. */
  private hotLoad(id: string, pkg: ExtensionPackage, registered: Registered): void {
    const { name, version } = pkg.manifest;
    const definitions: ToolDefinition[] = extensionToolDefinitions(pkg, registered, { allowedCapabilities: this.deps.allowedCapabilities });
    this.unload(name);
    for (const tool of definitions) {
      if (this.deps.registry.get(tool.name)) this.deps.yieldName?.(tool.name);
      this.deps.registry.unregister(tool.name);
      this.deps.registry.register(tool);
      this.toolOwners.set(tool.name, name);
    }
    this.installed.set(name, { id, name, version, pkg, registered, tools: definitions.map((d) => d.name) });
    this.deps.log.info(`extension ${name} v${version} installed: ${definitions.map((d) => d.name).join(", ") || "no tools"}`);
  }

  private unloadIf(name: string, id: string) {
    if (this.installed.get(name)?.id === id) this.unload(name);
  }

  private unload(name: string): void {
    const x = this.installed.get(name);
    if (!x) return;
    this.installed.delete(name);
    for (const tool of x.tools) {
      if (this.toolOwners.get(tool) !== name) continue;
      this.toolOwners.delete(tool);
      this.deps.registry.unregister(tool);
    }
  }

  /** One compare-and-set transition with its audit row. */
  private async move(
    id: string,
    from: ExtensionState,
    to: ExtensionState,
    by: ExtensionActor,
    channel: string,
    reason: string | null,
  ): Promise<void> {
    if (!canExtensionGo(from, to))
      throw new ExtensionError("CONFLICT", `A ${from.replace("_", " ")} extension cannot become ${to.replace("_", " ")}`);
    const { db } = this.deps;
    const res = await db.extension.updateMany({
      where: { id, state: from },
      data: { state: to, stateReason: reason?.slice(0, 2000) ?? null },
    });
    if (res.count !== 1) throw new ExtensionError("CONFLICT", "The extension changed meanwhile; reload and try again");
    const row = await db.extension.findUniqueOrThrow({ where: { id }, select: { name: true, version: true, authorRunId: true } });
    await recordAudit(db, {
      kind: "extension.transition",
      actorId: by.id,
      actorName: by.name,
      channel,
      runId: row.authorRunId,
      subject: `${row.name} v${row.version}`,
      fromState: from,
      toState: to,
      detail: { extensionId: id, ...(reason ? { reason: reason.slice(0, 500) } : {}) },
      at: this.now(),
    });
  }
}
