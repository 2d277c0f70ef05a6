// The shell of a run on T3 (docs/desktops-and-tiers.md#t3-remote-machines): each
// command runs in the run's terminal pod on its machine, and the machine's
// workspace is copied back after it, so the file tools (which work on the
// run's workspace here) see what the command wrote. A command cut off by a
// dropped connection is reported as failed, never run again; Rein reconnects
// within the grace period and the run goes on, or it pauses with the reason
// and its resume reconnects.
import { ToolError, type TerminalAccess } from "@/server/tools";
import type { MachineRuns } from "./remote";
import { syncFigures } from "./remote";

/** What the shell on a machine needs from the tier controller. */
export interface MachineTerminalHost {
  /** The run used its tier now (the idle downgrade). */
  touched(runId: string): void;
  /** The run's connection is gone: the run pauses with `reason` after this step. */
  machineLost(runId: string, reason: string): void;
  /** A dropped connection made again within the grace period; false: the run pauses after this step. */
  regain(runId: string): Promise<boolean>;
  /** The workspace came back after a command, or went to the machine before one: recorded as an event. */
  synced(runId: string, toolCallId: string, figures: ReturnType<typeof syncFigures>, direction?: "push" | "pull"): Promise<void>;
  machineName(runId: string): string;
}

const lostWords = (name: string) =>
  `The connection to the machine ${name} dropped while the command ran: it may or may not have finished there, ` +
  `and it is not run again. Rein could not reconnect: the run pauses; when it resumes, Rein reconnects and copies the workspace to the machine again.`;

const regainedWords = (name: string) =>
  `The connection to the machine ${name} dropped while the command ran: it may or may not have finished there, ` +
  `and it is not run again. Rein reconnected (the run's timeline says whether the machine's copy of the workspace came back). ` +
  `Check what the command did before you go on.`;

export function machineTerminal(host: MachineTerminalHost, remote: MachineRuns, runId: string, toolCallId: string): TerminalAccess {
  return {
    async exec(command, options) {
      host.touched(runId);
      const name = host.machineName(runId);
      const start = () =>
        remote.pod(runId).catch((err: Error) => {
          throw new ToolError("MACHINE_UNAVAILABLE", `The shell on the machine ${name} could not start: ${err.message}`);
        });
      // A connection that dropped while nothing ran: made again (the command has not started yet), or the run pauses.
      const pod = (await start()) ?? ((await host.regain(runId)) ? await start() : null);
      if (!pod) {
        const reason = `The connection to the machine ${name} is gone: the command was not run`;
        host.machineLost(runId, reason);
        throw new ToolError("MACHINE_LOST", `${reason}. The run pauses; when it resumes, Rein reconnects.`);
      }
      // What the file tools changed here goes to the machine first, so the command sees it.
      const sent = await remote.sendChanges(runId).catch((err: Error) => {
        throw new ToolError(
          "SYNC_FAILED",
          `The workspace's changes could not be copied to ${name}, so the command was not run: ${err.message}`,
        );
      });
      if (sent) await host.synced(runId, toolCallId, syncFigures(sent), "push");
      let result;
      try {
        result = await pod.exec(command, options);
      } catch (err) {
        // The shell's channel may close a moment before the connection says it closed.
        if (!(await remote.droppedWithin(runId, 3000))) throw err;
        if (await host.regain(runId)) throw new ToolError("MACHINE_DROPPED", regainedWords(name));
        host.machineLost(runId, `The connection to the machine ${name} dropped while a command ran`);
        throw new ToolError("MACHINE_LOST", lostWords(name));
      }
      host.touched(runId);
      const pulled = await remote.pull(runId, { afterCommand: true }).catch((err: Error) => {
        throw new ToolError(
          "SYNC_FAILED",
          `The command ran on ${name} (exit code ${result.exitCode}), but its files could not be copied back: ${err.message}`,
        );
      });
      if (pulled) await host.synced(runId, toolCallId, syncFigures(pulled));
      return result;
    },
  };
}
