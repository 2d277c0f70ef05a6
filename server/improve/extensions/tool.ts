// propose_extension: the improver hands a package to the registry
// (docs/extensions.md). The registry checks it, runs its gate and installs it
// only if every test passes (and, when the setting asks, a person approves);
// the agent learns the outcome and every problem, and can deploy nothing itself.
import { z } from "zod";
import { ToolError, type ToolDefinition } from "@/server/tools";
import { ExtensionError, type ExtensionRegistry } from "./registry";

const Args = z.object({ manifest: z.record(z.string(), z.unknown()), files: z.record(z.string(), z.string()) }).strict();

export function proposeExtensionTool(registry: ExtensionRegistry): ToolDefinition<z.infer<typeof Args>> {
  return {
    name: "propose_extension",
    description:
      "Proposes an extension package: { manifest: { name, version, description, capabilities, tools?, skills?, hooks?, replay? }, files: { path: text } } " +
      "with index.js (module.exports = { name, version, setup(api) }) and tests in test/*.test.js (at least one per tool). Rein builds it and runs all its tests " +
      "in the sandbox; it is installed only if every test passes, and after an admin's approval when the admins ask for one. Returns its id, state and why.",
    args: Args,
    replayClass: "idempotent_with_key",
    idempotencyKey: (args) => JSON.stringify(args),
    persistence: "external",
    timeoutMs: 120_000,
    async execute(args, ctx) {
      try {
        return await registry.propose(args, {
          authorRunId: ctx.runId,
          by: { id: "system", name: `Rein (run ${ctx.runId})` },
          channel: "agent",
        });
      } catch (err) {
        if (err instanceof ExtensionError) throw new ToolError(`EXTENSION_${err.code}`, err.message);
        throw err;
      }
    },
  };
}
