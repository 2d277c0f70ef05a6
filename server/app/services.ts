// The services every transport serves from (docs/architecture.md#composition-root):
// tRPC's context, REST's handler context, the MCP server's tools and the
// sockets all get this one object, built once by composeServices. Every field
// is required: a server runs every service, and a test builds what it needs
// with test/helpers/services.ts (docs/development.md#how-the-code-is-laid-out).
import type { Webhooks } from "@/server/channels";
import type { Cluster } from "@/server/cluster";
import type { PodPool, SandboxStatus } from "@/server/compute";
import type { Db } from "@/server/db";
import type { DeviceHub } from "@/server/devices";
import type { TeamKeyGateway } from "@/server/gateway";
import type { Hitl } from "@/server/hitl";
import type { HostedPrograms } from "@/server/hosted";
import type { ChangeRequests, ExtensionRegistry, SkillLibrary } from "@/server/improve";
import type { Kernel } from "@/server/kernel";
import type { McpServers } from "@/server/mcp-client";
import type { ModelAdmin } from "@/server/models";
import type { SecretKeyring } from "@/server/secrets";
import type { Retention } from "@/server/retention";
import type { TierRuntime } from "@/server/tiers";

export interface Services {
  db: Db;
  kernel: Kernel;
  /** Terminal pods and the sandbox's status (Settings › System). */
  compute: { terminals: PodPool; sandbox: SandboxStatus };
  /** Human requests and resume links (docs/human-requests-and-policy.md). */
  hitl: Hitl;
  /** The PolicyGate in force, told when an admin saves a new version. */
  policy: { invalidate(): void };
  /** Spans and costs (docs/traces-and-costs.md): reloads the PriceBook after a price changed, and the OTLP export after its setting did. */
  telemetry: { loadPrices(): Promise<void>; applyOtlp(): Promise<void> };
  /** Providers, models and routing (docs/models.md), and the models a run may use. */
  models: ModelAdmin;
  /** The running compute tiers: availability, and the warm pools resized when an admin saves the tier settings. */
  tiers: TierRuntime;
  /** Seals the secrets admins add (docs/secrets.md). */
  keyring: SecretKeyring;
  /** The experiment runner, told when an experiment was started (it also finds new ones on its own). */
  experiments: { wake(experimentId: string): void };
  /** Self-improvement (docs/improvements.md): the live runtime tools, reloads and promotions. */
  improve: ImproveRuntime;
  /** MCP servers attached as tool sources (docs/mcp.md). */
  mcp: McpServers;
  /** The programs hosted agents run, their installs and tests (docs/hosted-agents.md#the-programs). */
  hosted: HostedPrograms;
  /** The model gateway for team gateway keys, on Rein's own port (docs/gateway.md#team-keys). */
  gatewayKeys: Pick<TeamKeyGateway, "handle">;
  /** People's devices connected to this process (docs/devices.md#the-hub). */
  devices: DeviceHub;
  /** Signed webhook endpoints (docs/channels.md#webhooks). */
  webhooks: Webhooks;
  /** Settings › System: this process's place in the deployment, and Rein's version. */
  system: SystemInfo;
  /** Settings › Data (docs/operations.md#retention): how long data is kept, the pruner, disk use and pins. */
  retention: Retention;
}

/** What the Improvements pages and routes change in the running server. */
export interface ImproveRuntime {
  live: { unload(name: string): void };
  reload(improvementId: string): Promise<void>;
  promote(improvementId: string, by: { id: string; name: string }, channel: string): Promise<boolean>;
  /** The skill library whose cache of active skills the kernel reads every turn. */
  skills: SkillLibrary;
  /** Change requests to repositories (docs/changes.md). */
  changes: ChangeRequests;
  /** The extension registry whose installed extensions the kernel offers every turn. */
  extensionRegistry: ExtensionRegistry;
}

export interface SystemInfo {
  /** null: one process; else this process's membership of several machines (docs/several-machines.md). */
  cluster: Cluster | null;
  /** Rein's version (package.json), in the process registry and /api/health. */
  version: string;
}
