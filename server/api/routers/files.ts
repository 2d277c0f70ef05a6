// The run workspace's files: the Files tab's tree, Monaco editor and diff
// (docs/terminal-and-files.md#the-files-tab).
import { z } from "zod";
import { event, getRun, getRunAs } from "@/server/kernel";
import { MAX_TEXT_BYTES, workspaceFiles } from "@/server/tools";
import { operatorProcedure, router, viewerProcedure, type Context } from "../trpc";

const RunInput = z.object({ runId: z.string().min(1, "runId is required") });
const FilePath = z.string().trim().min(1, "path is required").max(4096, "path is longer than 4,096 characters");
const ReadInput = RunInput.extend({ path: FilePath });
const SaveInput = RunInput.extend({
  path: FilePath,
  // Characters, not bytes; the service checks the byte size.
  content: z.string().max(MAX_TEXT_BYTES, `content is longer than ${MAX_TEXT_BYTES.toLocaleString("en-US")} characters`),
  /** The hash files.read gave; null when creating a file that must not exist yet. Omitted: overwrite. */
  expectedHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expectedHash is the hash files.read returned")
    .nullable()
    .optional(),
});

/** The run's workspace files, once the actor may see the run. */
async function filesOf(ctx: Pick<Context, "db" | "kernel"> & { actor: NonNullable<Context["actor"]> }, runId: string) {
  await getRun(ctx.db, runId, ctx.actor);
  return workspaceFiles(ctx.kernel.deps.workspaceFor(runId));
}

export const filesRouter = router({
  tree: viewerProcedure.input(RunInput).query(async ({ ctx, input }) => (await filesOf(ctx, input.runId)).tree()),
  read: viewerProcedure.input(ReadInput).query(async ({ ctx, input }) => (await filesOf(ctx, input.runId)).readText(input.path)),
  diff: viewerProcedure.input(RunInput).query(async ({ ctx, input }) => (await filesOf(ctx, input.runId)).diff()),
  save: operatorProcedure.input(SaveInput).mutation(async ({ ctx, input }) => {
    await getRunAs(ctx.db, input.runId, ctx.actor, "operator", "Editing a run's files");
    const files = await filesOf(ctx, input.runId);
    const saved = await files.save(input.path, input.content, input.expectedHash);
    const { userId, name, email } = ctx.actor;
    await ctx.kernel.store.appendEvents(input.runId, [
      event(
        "workspace.edit",
        { path: saved.path, bytes: saved.bytes, by: userId, byName: name || email, created: saved.created },
        { actor: userId },
      ),
    ]);
    return saved;
  }),
});
