// An installed extension's tools as ToolDefinitions: arguments checked on the
// host with the same hostile-schema validator as runtime tools, each call a
// fresh sandbox running the package's handler, capabilities lent only when
// the manifest declares them and an admin allows them.
import { ToolError, type ReplayClass, type ToolContext, type ToolDefinition } from "@/server/tools";
import type { RuntimeCapability, SandboxHost, SandboxLimits, SandboxOutcome } from "../sandbox";
import { argsValidator } from "../runtime-tools/proposal";
import { runBundle, toolSource, type Registered } from "./load";
import type { ExtensionPackage } from "./package";

const MAX_READ_BYTES = 1024 * 1024;

export interface ExtensionToolOptions {
  /** Capabilities an admin allows (Settings → Improvements), asked at each call. */
  allowedCapabilities(): Promise<RuntimeCapability[]>;
  /** The host lent for workspace:read; by default the run's workspace through its file sandbox. */
  hostFor?(ctx: ToolContext): SandboxHost;
  limits?: Partial<SandboxLimits>;
  /** Each call's outcome, for use counts and traces. */
  onCall?(tool: string, ctx: ToolContext, outcome: SandboxOutcome): Promise<void> | void;
}

function workspaceHost(ctx: ToolContext): SandboxHost {
  return {
    readFile: async (path: string) => (await ctx.workspace.readFile(path, { maxBytes: MAX_READ_BYTES })).data.toString("utf8"),
  };
}

export function extensionToolDefinitions(pkg: ExtensionPackage, registered: Registered, opts: ExtensionToolOptions): ToolDefinition[] {
  const { manifest } = pkg;
  const needsRead = manifest.capabilities.includes("workspace:read");
  return registered.tools.map((tool): ToolDefinition => {
    const validator = argsValidator(tool.argsSchema);
    if ("problems" in validator)
      throw new Error(`extension ${manifest.name}, tool ${tool.name}: unusable argsSchema: ${validator.problems.join("; ")}`);
    const source = toolSource(pkg, tool.name);
    return {
      name: tool.name,
      description: `${tool.description} (extension ${manifest.name} v${manifest.version})`,
      args: validator.parser,
      inputSchema: tool.argsSchema,
      policyAlias: "extension_tool",
      replayClass: (manifest.replay?.[tool.name] ?? "unsafe_on_replay") as ReplayClass,
      persistence: "none",
      timeoutMs: 15_000,
      async execute(args, ctx) {
        let host: SandboxHost = {};
        if (needsRead) {
          if (!(await opts.allowedCapabilities()).includes("workspace:read")) {
            throw new ToolError(
              "CAPABILITY_DENIED",
              `The extension ${manifest.name} needs workspace:read, which an admin has not allowed (Settings → Improvements)`,
            );
          }
          host = opts.hostFor?.(ctx) ?? workspaceHost(ctx);
        }
        const outcome = await runBundle(source, args, host, opts.limits);
        await opts.onCall?.(tool.name, ctx, outcome);
        if (!outcome.ok) throw new ToolError(`EXTENSION_TOOL_${outcome.error.code}`, `${tool.name}: ${outcome.error.message}`);
        return outcome.output;
      },
    };
  });
}
