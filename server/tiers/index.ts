// Compute tiers (docs/desktops-and-tiers.md#the-tiers): the tier state machine,
// its settings, and the controller that moves runs between T0, T1, T2 and T3 (T4
// is shown as not available on this server). Other code imports only
// this file.
import { isTerminal, type Kernel, type RunState } from "@/server/kernel";
import type { TierController } from "./controller";

export * from "./types";
export {
  decideUpgrade,
  complexityOf,
  estimatedCostUsd,
  tierLabel,
  DEFAULT_COMPLEXITY,
  type UpgradeFacts,
  type UpgradeDecision,
  type Complexity,
} from "./machine";
export {
  defaultTierSettings,
  readTierSettings,
  saveTierSettings,
  TierSettingsInput,
  SETTING_TIERS,
  MAX_POOL_SIZE,
  POOLED_TIERS,
} from "./settings";
export { TierController, type TierControllerDeps, type UpgradeOutput } from "./controller";
export { joinWorkspace, type DesktopProvider, type TerminalPods } from "./environments";
export { MachineRuns, type MachineRunsDeps } from "./remote";
export { DeviceRuns, DeviceWorkspace, type DeviceRunsDeps, type DeviceCandidate } from "./device";
export { getTierOverview, updateTierSettings, type TierRuntime, type TierOverview } from "./service";

/**
 * Connects the tier controller to a kernel: tool calls get the run's tier, a
 * desktop a person took over is not idle, and a run that ends gives back its
 * desktop (and, when on T2, goes back to T1).
 */
export function connectTiers(kernel: Kernel, tiers: TierController, log?: { error(msg: string, err?: unknown): void }): () => void {
  kernel.deps.tiers = tiers;
  return kernel.bus.onAny((runId, events) => {
    for (const e of events) {
      if (e.type === "desktop.control") tiers.personControl(runId, (e.payload as { action: string }).action === "takeover");
      if (e.type !== "run.state") continue;
      const to = (e.payload as { to: RunState }).to;
      if (isTerminal(to)) tiers.runEnded(runId, to).catch((err) => log?.error(`run ${runId}: leaving its tier failed`, err));
      if (to === "paused") tiers.runPaused(runId).catch((err) => log?.error(`run ${runId}: copying its workspace back failed`, err));
    }
  });
}
