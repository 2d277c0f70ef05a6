// Actions on runs from the Runs list and the run page: tagging, and cancelling several at once.
import { z } from "zod";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { ControlActor, ControlResult } from "./pool";
import { TagsSchema } from "./run-tags";
import { RunNotFoundError, TeamAccessError, getRunAs } from "./runs";
import { isTerminal } from "./states";

export const SetTagsInput = z.object({ id: z.string().min(1, "id is required"), tags: TagsSchema }).strict();
export type SetTagsInput = z.input<typeof SetTagsInput>;

/** Replaces a run's tags; needs the operator role in the run's team. Returns the tags, sorted. */
export async function setRunTags(db: Db, raw: SetTagsInput, actor: Actor): Promise<string[]> {
  const { id, tags } = SetTagsInput.parse(raw);
  await getRunAs(db, id, actor, "operator", "Tagging a run");
  await db.$transaction(async (tx) => {
    await tx.runTag.deleteMany({ where: { runId: id } });
    if (tags.length) await tx.runTag.createMany({ data: tags.map((tag) => ({ runId: id, tag })) });
  });
  return [...tags].sort();
}

export const MAX_BULK_CANCEL = 100;

export const CancelRunsInput = z
  .object({
    ids: z
      .array(z.string().min(1, "a run id is empty").max(64))
      .min(1, "pick at least one run")
      .max(MAX_BULK_CANCEL, `at most ${MAX_BULK_CANCEL} runs at once`),
  })
  .strict();
export type CancelRunsInput = z.input<typeof CancelRunsInput>;

/** What happened to one run of a bulk cancel. */
export type CancelOutcome =
  { id: string; outcome: "canceled" } | { id: string; outcome: "ended" | "not_found" | "forbidden"; message: string };

/** Cancels each run the person may cancel; every id is checked on its own and gets its own outcome. */
export async function cancelRuns(
  deps: { db: Db; pool: { cancel(runId: string, who: ControlActor): Promise<ControlResult> } },
  raw: CancelRunsInput,
  actor: Actor,
): Promise<CancelOutcome[]> {
  const ids = [...new Set(CancelRunsInput.parse(raw).ids)];
  const who = { id: actor.userId, name: actor.name };
  const one = async (id: string): Promise<CancelOutcome> => {
    try {
      const run = await getRunAs(deps.db, id, actor, "operator", "Cancelling a run");
      if (isTerminal(run.status)) return { id, outcome: "ended", message: `The run had already ${run.status}` };
      const result = await deps.pool.cancel(id, who);
      return result.ok ? { id, outcome: "canceled" } : { id, outcome: "ended", message: result.reason };
    } catch (e) {
      if (e instanceof RunNotFoundError) return { id, outcome: "not_found", message: e.message };
      if (e instanceof TeamAccessError) return { id, outcome: "forbidden", message: e.message };
      throw e;
    }
  };
  // A few at a time: cancelling a running run waits for its step to stop.
  const out: CancelOutcome[] = [];
  for (let i = 0; i < ids.length; i += 10) out.push(...(await Promise.all(ids.slice(i, i + 10).map(one))));
  return out;
}
