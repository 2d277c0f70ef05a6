// What the agent is told when its tier changes
// (docs/desktops-and-tiers.md#moving-up-upgrade_tier): where it was, where it
// is, where its files are and what it can do now. A user message, before its
// next turn.
import { TIER_OFFERS, type TierId } from "./types";
import { tierLabel } from "./machine";

export interface MoveSummary {
  from: string;
  to: TierId;
  durationMs: number;
  /** The workspace on this machine: where the browser's downloads go. */
  workspaceDir: string;
  /** The run's messages so far, for the "prior tier" line. */
  priorSteps: number;
  /** T3: the machine's name. */
  machine?: string;
  /** T4: the device's name. */
  device?: string;
}

function seconds(ms: number) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function upgradeSummary(s: MoveSummary): string {
  const lines = [
    `[Rein] Your run moved from ${tierLabel(s.from)} to ${tierLabel(s.to)} (${seconds(s.durationMs)}).`,
    `Before: ${tierLabel(s.from)}, ${s.priorSteps} model turn${s.priorSteps === 1 ? "" : "s"} so far; ${TIER_OFFERS[s.from as TierId] ?? "its own tools"}.`,
    s.to === "T3"
      ? `Workspace: copied to the machine ${s.machine ?? ""}. The shell runs there; after each command the workspace is copied back, so the file tools see what it wrote.`
      : s.to === "T4"
        ? `Workspace: the folder its owner chose on the device ${s.device ?? ""}. The file tools and the shell work there, in the owner's files (paths are relative to that folder; nothing outside it is reachable). Your earlier workspace is not there.`
        : `Workspace: unchanged. The file tools and the shell (at /workspace) see the same files as before.`,
  ];
  if (s.to === "T2") {
    lines.push(
      `Chromium saves downloads into the workspace, so the file tools and the shell see them.`,
      `The browser is a fresh Chromium on about:blank: nothing is logged in and no page is open.`,
    );
  }
  lines.push(`Available now: ${TIER_OFFERS[s.to]}.`);
  return lines.join("\n");
}

/** Before the next turn of a run whose desktop is gone (`cause`: "The server restarted"). */
export function lostSummary(tier: string, workspaceDir: string, cause = "The server restarted"): string {
  return [
    `[Rein] ${cause} while your run was on ${tierLabel(tier)}. You are still on ${tier}, but the desktop's browser state is gone:`,
    `open pages, form input, cookies and logins. A fresh desktop starts when you next use a browser tool; start again from a URL.`,
    `Your workspace files are unchanged, and downloads still go there.`,
  ].join("\n");
}

/** Before the next turn of a run on T3 whose connection was made again (`cause`: why it was gone). */
export function reconnectedSummary(machine: string, cause: string): string {
  return [
    `[Rein] ${cause}. You are still on T3 (remote machine): Rein reconnected to ${machine} and copied the workspace there again,`,
    `as it was after your last completed command. A command that was running when the connection dropped did not finish here and was not run again;`,
    `its result says so. Check its effects before running it again. The shell starts fresh (no variables or background jobs of before).`,
  ].join("\n");
}

/** Why a run below T2 has no desktop, for the browser tools' refusal. */
export function noDesktopReason(tier: string, released?: string): string {
  const why = released ? ` (${released})` : "";
  return `The run is on ${tierLabel(tier)}${why}: it has no desktop. Call upgrade_tier with tier "T2" and a reason to get one; the browser starts fresh.`;
}
