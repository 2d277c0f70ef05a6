// CLI commands for reviewed changes over REST v1 (docs/changes.md):
// `repos` lists, shows, registers, archives and restores repositories;
// `changes` lists change requests, shows one with its diff and test log,
// starts one (an agent on a worktree), runs its checks again, merges
// (approves as you), rejects and reverts.
import type { RestClient } from "../lib/rest-client";
import { CliError, ok } from "./cli-error";
import type { CliCommand, CliContext } from "./cli-commands";

export const CHANGE_OPTIONS = {
  /** repos add: where the repository is (a local path or a git URL). */
  source: { type: "string" },
  branch: { type: "string" },
  "test-command": { type: "string" },
  "test-timeout": { type: "string" },
  /** repos add: protected globs, comma-separated. */
  protect: { type: "string" },
  /** changes start / changes: the repository, by id or name. */
  repo: { type: "string" },
} as const;

type RepoValues = {
  json?: boolean;
  name?: string;
  source?: string;
  branch?: string;
  "test-command"?: string;
  "test-timeout"?: string;
  protect?: string;
  team?: string;
};
type ChangeValues = {
  json?: boolean;
  state?: string;
  repo?: string;
  goal?: string;
  agent?: string;
  model?: string;
  team?: string;
  comment?: string;
  wait?: boolean;
};

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 10) : "—");
const STATE_WORDS: Record<string, string> = {
  draft: "draft",
  checks_running: "checks running",
  checks_failed: "checks failed",
  awaiting_review: "waiting for review",
  merged: "merged",
  rejected: "rejected",
  reverted: "reverted",
};
const stateWords = (s: string) => STATE_WORDS[s] ?? s;
const isKey = <K extends string>(o: Record<K, unknown>, key: string): key is K => Object.hasOwn(o, key);

function idOf(args: string[], what: string, verb: string): string {
  if (!args[1]) throw new CliError(`${what} ${verb} needs an ID (npm run rein -- ${what} lists them)`);
  return args[1];
}

/** A repository named by id or by name. */
async function repoId(api: RestClient, ref: string): Promise<string> {
  const { repositories } = await ok(api.GET("/api/v1/repositories"));
  const hit = repositories.find((r) => r.id === ref || r.name === ref);
  if (!hit) throw new CliError(`There is no repository ${ref}; npm run rein -- repos lists them`);
  return hit.id;
}

export const CHANGE_COMMANDS: Array<CliCommand<RepoValues> | CliCommand<ChangeValues>> = [
  {
    command: "repos",
    usage:
      "[show ID | add --name N --source PATH_OR_URL --test-command CMD [--branch B] [--test-timeout S] [--protect GLOBS] [--team T] | archive ID | restore ID] [--json]",
    description:
      "List the repositories agents may propose changes to, show one, register one (admin: a local path or a git URL, its default branch, test command and protected paths), or archive and restore one.",
    async run({ api, args, values }: CliContext<RepoValues>) {
      const [verb] = args;
      if (!verb) {
        const { repositories } = await ok(api.GET("/api/v1/repositories"));
        if (values.json) return console.log(JSON.stringify(repositories));
        if (!repositories.length)
          return console.log("No repositories yet. Register one with: npm run rein -- repos add --name N --source PATH --test-command CMD");
        for (const r of repositories)
          console.log(
            `${r.name.padEnd(24)} ${r.defaultBranch.padEnd(12)} ${r.testCommand.padEnd(24)} ${r.source}${r.builtIn ? "  (built in)" : ""}  ${r.id}`,
          );
        return;
      }
      if (verb === "show") {
        const r = await ok(api.GET("/api/v1/repositories/{id}", { params: { path: { id: idOf(args, "repos", "show") } } }));
        if (values.json) return console.log(JSON.stringify(r));
        console.log(`${r.name}${r.archived ? " (archived)" : ""}: ${r.source}, branch ${r.defaultBranch}`);
        console.log(`tests: ${r.testCommand}`);
        console.log(`protected: ${r.protectedPaths.length ? r.protectedPaths.join(", ") : "nothing besides Rein's own rules"}`);
        return;
      }
      if (verb === "add") {
        if (!values.name || !values.source || !values["test-command"])
          throw new CliError("repos add needs --name, --source (a local path or a git URL) and --test-command");
        const body = {
          name: values.name,
          source: values.source,
          testCommand: values["test-command"],
          ...(values.branch ? { defaultBranch: values.branch } : {}),
          ...(values["test-timeout"] ? { testTimeoutSec: Number(values["test-timeout"]) } : {}),
          ...(values.protect
            ? {
                protectedPaths: values.protect
                  .split(",")
                  .map((g) => g.trim())
                  .filter(Boolean),
              }
            : {}),
          ...(values.team ? { teamId: values.team } : {}),
        };
        const r = await ok(api.POST("/api/v1/repositories", { body }));
        if (values.json) return console.log(JSON.stringify(r));
        return console.log(`Repository ${r.name} registered (${r.id})`);
      }
      if (verb === "archive" || verb === "restore") {
        const r = await ok(
          api.POST("/api/v1/repositories/{id}/archive", {
            params: { path: { id: idOf(args, "repos", verb) } },
            body: { archived: verb === "archive" },
          }),
        );
        if (values.json) return console.log(JSON.stringify(r));
        return console.log(`Repository ${r.name} ${verb === "archive" ? "archived" : "restored"}`);
      }
      throw new CliError(`repos has no ${verb}: use show, add, archive or restore`);
    },
  },
  {
    command: "changes",
    usage:
      "[show ID | checks ID | start --repo R --goal G [--agent A] [--model M] [--wait] | rerun ID | merge ID | reject ID | revert ID --comment WHY | comment ID --comment C] [--state S] [--json]",
    description:
      "List change requests (filter with --state), show one with its diff and last test log, start one (an agent on a worktree of the repository; --wait until it is ready for review), run its checks again, merge it (approver: approves as you; never a change of a run you launched), reject it, revert a merged one (--comment says why), or comment on it. show prints its conversation.",
    async run({ api, args, values }: CliContext<ChangeValues>) {
      const [verb] = args;
      if (!verb) {
        const query = {
          ...(values.state ? { state: values.state } : {}),
          ...(values.repo ? { repository: await repoId(api, values.repo) } : {}),
        };
        const { changeRequests } = await ok(api.GET("/api/v1/change-requests", { params: { query } }));
        if (values.json) return console.log(JSON.stringify(changeRequests));
        if (!changeRequests.length)
          return console.log(
            'No change requests yet. Start one with: npm run rein -- changes start --repo demo-service --goal "Fix the failing test"',
          );
        for (const c of changeRequests) {
          console.log(
            `${c.id}  ${stateWords(c.state).padEnd(19)} ${c.repository.name.padEnd(18)} +${c.diffStat.insertions}/-${c.diffStat.deletions}  ${c.title}`,
          );
        }
        return;
      }
      if (verb === "show") {
        const c = await ok(api.GET("/api/v1/change-requests/{id}", { params: { path: { id: idOf(args, "changes", "show") } } }));
        if (values.json) return console.log(JSON.stringify(c));
        console.log(`${c.title}: ${stateWords(c.state)}${c.stateReason ? ` — ${c.stateReason}` : ""}`);
        console.log(
          `${c.repository.name} ${c.branch}: base ${short(c.baseCommit)} → head ${short(c.headCommit)}${c.mergeCommit ? `, merged as ${short(c.mergeCommit)}` : ""}${c.revertCommit ? `, reverted by ${short(c.revertCommit)}` : ""}`,
        );
        if (c.authorRun)
          console.log(
            `written by run ${c.authorRun.id} (${c.authorRun.agentName} on ${c.authorRun.model}${c.authorRun.model.startsWith("scripted/") ? ", scripted" : ""}, $${c.authorRun.costUsd.toFixed(4)}), launched by ${c.authorRun.launchedBy ?? "—"}`,
          );
        if (c.hypothesis) console.log(`\nhypothesis: ${c.hypothesis}`);
        for (const risk of ["high", "medium", "low"] as const)
          if (c.filesByRisk[risk].length) console.log(`${risk} risk: ${c.filesByRisk[risk].join(", ")}`);
        if (c.checks.tests)
          console.log(`tests: ${c.checks.tests.state} (exit ${c.checks.tests.exitCode ?? "—"}, ${c.checks.tests.durationMs} ms)`);
        if (c.fix) console.log(`before and after: ${c.fix.words}`);
        if (c.mergeBlockedBy) console.log(`cannot merge yet: ${c.mergeBlockedBy}`);
        if (c.activity.length) {
          console.log("\nconversation:");
          for (const a of c.activity) console.log(`  ${a.at} ${a.who} ${a.text}${a.comment ? `: “${a.comment}”` : ""}`);
        }
        if (c.diff) console.log(`\n${c.diff.text}${c.diff.truncated ? "\n[the diff is longer; see the change's page]" : ""}`);
        return;
      }
      if (verb === "checks") {
        const { checks } = await ok(
          api.GET("/api/v1/change-requests/{id}/checks", { params: { path: { id: idOf(args, "changes", "checks") } } }),
        );
        if (values.json) return console.log(JSON.stringify(checks));
        if (!checks.length) return console.log("No checks have run yet");
        for (const k of checks)
          console.log(`--- ${k.kind} ${k.state} (exit ${k.exitCode ?? "—"}, ${k.durationMs} ms, ${k.startedAt})\n${k.log}`);
        return;
      }
      if (verb === "start") {
        if (!values.repo || !values.goal) throw new CliError("changes start needs --repo (id or name) and --goal");
        const body = {
          repositoryId: await repoId(api, values.repo),
          goal: values.goal,
          ...(values.agent ? { agent: values.agent } : {}),
          ...(values.model ? { model: values.model } : {}),
          ...(values.team ? { teamId: values.team } : {}),
        };
        let c = await ok(api.POST("/api/v1/change-requests", { body }));
        const again = (id: string) => ok(api.GET("/api/v1/change-requests/{id}", { params: { path: { id } } }));
        if (values.wait) {
          while (c.state === "draft" && c.authorRun && !["succeeded", "failed", "canceled"].includes(c.authorRun.status)) {
            await new Promise((r) => setTimeout(r, 1000));
            c = await again(c.id);
          }
          while (c.state === "checks_running") {
            await new Promise((r) => setTimeout(r, 1000));
            c = await again(c.id);
          }
        }
        if (values.json) return console.log(JSON.stringify(c));
        return console.log(
          `Change request ${c.id}: ${stateWords(c.state)}${c.stateReason ? ` — ${c.stateReason}` : ""} (run ${c.authorRun?.id ?? "—"})`,
        );
      }
      const done = { rerun: "checks ran again", merge: "approved", reject: "rejected", revert: "reverted", comment: "has your comment" };
      if (!isKey(done, verb))
        throw new CliError(`changes has no ${verb}: use show, checks, start, rerun, merge, reject, revert or comment`);
      const params = { path: { id: idOf(args, "changes", verb) } };
      const body = values.comment ? { comment: values.comment } : {};
      if ((verb === "revert" || verb === "comment") && !values.comment?.trim())
        throw new CliError(`changes ${verb} needs --comment "${verb === "revert" ? "why it is reverted" : "what you want to say"}"`);
      const c = await ok(
        verb === "rerun"
          ? api.POST("/api/v1/change-requests/{id}/checks", { params })
          : verb === "revert"
            ? api.POST("/api/v1/change-requests/{id}/revert", { params, body: { reason: values.comment! } })
            : verb === "comment"
              ? api.POST("/api/v1/change-requests/{id}/comments", { params, body: { comment: values.comment! } })
              : api.POST(`/api/v1/change-requests/{id}/${verb}`, { params, body }),
      );
      if (values.json) return console.log(JSON.stringify(c));
      return console.log(
        `Change request ${c.id} ${done[verb]}: now ${stateWords(c.state)}${c.stateReason ? ` — ${c.stateReason}` : ""}${c.mergeCommit && c.state === "merged" ? ` (merge commit ${short(c.mergeCommit)})` : ""}`,
      );
    },
  },
];
