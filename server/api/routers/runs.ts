import { z } from "zod";
import {
  CreateRunInput,
  ListRunsInput,
  createRun,
  exportScenario,
  getRun,
  getRunAs,
  rememberTeam,
  listEvents,
  listRuns,
  rerunRun,
  retryRun,
  forkRun,
  compareRuns,
  ForkInput,
  CompareInput,
  runLineage,
  sendMessage,
  RerunInput,
  RetryInput,
  SendMessageInput,
  SetTagsInput,
  CancelRunsInput,
  setRunTags,
  cancelRuns,
  type ControlResult,
} from "@/server/kernel";
import { DomainError } from "@/server/errors";
import { operatorProcedure, router, viewerProcedure } from "../trpc";

const RunId = z.object({ id: z.string().min(1, "id is required") });
const PinInput = RunId.extend({ pinned: z.boolean() });
const EventsInput = z.object({
  id: z.string().min(1),
  after: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(500),
});

function check(result: ControlResult) {
  if (!result.ok) throw new DomainError("CONFLICT", result.reason);
  return { ok: true as const };
}

/** A run as runs.get gives it; list rows (the same type in the browser) have no program. */
type RunWithProgram = Awaited<ReturnType<typeof getRun>> & { hostedProgram?: { id: string; name: string } | null };

export const runsRouter = router({
  list: viewerProcedure.input(ListRunsInput).query(({ ctx, input }) => listRuns(ctx.db, input, ctx.actor)),
  /** The run, and the program its agent runs when it is a hosted agent (the header's badge). */
  get: viewerProcedure.input(RunId).query(async ({ ctx, input }): Promise<RunWithProgram> => {
    const run = await getRun(ctx.db, input.id, ctx.actor);
    return { ...run, hostedProgram: await ctx.hosted.programOf(run.agentName, run.agentVersion) };
  }),
  events: viewerProcedure
    .input(EventsInput)
    .query(({ ctx, input }) => listEvents(ctx.kernel, input.id, input.after, input.limit, ctx.actor)),
  exportScenario: viewerProcedure.input(RunId).query(({ ctx, input }) => exportScenario(ctx.kernel, input.id, ctx.actor)),
  /** The New run dialog: a team chosen there is offered first next time. */
  create: operatorProcedure.input(CreateRunInput).mutation(async ({ ctx, input }) => {
    const run = await createRun(ctx.kernel, input, ctx.actor);
    if (input.teamId) await rememberTeam(ctx.db, ctx.actor, run.teamId);
    return run;
  }),
  pause: operatorProcedure.input(RunId).mutation(async ({ ctx, input }) => {
    await getRunAs(ctx.db, input.id, ctx.actor, "operator", "Pausing a run");
    return check(await ctx.kernel.pool.pause(input.id, { id: ctx.actor.userId, name: ctx.actor.name }));
  }),
  resume: operatorProcedure.input(RunId).mutation(async ({ ctx, input }) => {
    await getRunAs(ctx.db, input.id, ctx.actor, "operator", "Resuming a run");
    return check(await ctx.kernel.pool.resume(input.id, { id: ctx.actor.userId, name: ctx.actor.name }));
  }),
  /** The message box: a message to the agent (a paused or ended run continues with it). */
  say: operatorProcedure.input(RunId.extend(SendMessageInput.shape).strict()).mutation(({ ctx, input }) => {
    const { id, ...message } = input;
    return sendMessage(ctx.kernel, id, ctx.actor, message);
  }),
  retry: operatorProcedure.input(RunId.extend(RetryInput.shape).strict()).mutation(({ ctx, input }) => {
    const { id, ...changes } = input;
    return retryRun(ctx.kernel, id, ctx.actor, changes);
  }),
  rerun: operatorProcedure.input(RunId.extend(RerunInput.shape).strict()).mutation(({ ctx, input }) => {
    const { id, ...changes } = input;
    return rerunRun(ctx.kernel, id, ctx.actor, changes);
  }),
  lineage: viewerProcedure.input(RunId).query(({ ctx, input }) => runLineage(ctx, input.id, ctx.actor)),
  /** Fork from a step: a new run with the conversation and the workspace as they were after it. */
  fork: operatorProcedure.input(RunId.extend(ForkInput.shape).strict()).mutation(({ ctx, input }) => {
    const { id, ...fork } = input;
    return forkRun(ctx.kernel, id, ctx.actor, fork);
  }),
  compare: viewerProcedure.input(CompareInput).query(({ ctx, input }) => compareRuns(ctx.kernel, ctx.actor, input)),
  cancel: operatorProcedure.input(RunId).mutation(async ({ ctx, input }) => {
    await getRunAs(ctx.db, input.id, ctx.actor, "operator", "Cancelling a run");
    return check(await ctx.kernel.pool.cancel(input.id, { id: ctx.actor.userId, name: ctx.actor.name }));
  }),
  /** The Runs list's "Cancel N runs": each id checked on its own, one outcome per id. */
  cancelMany: operatorProcedure
    .input(CancelRunsInput)
    .mutation(({ ctx, input }) => cancelRuns({ db: ctx.db, pool: ctx.kernel.pool }, input, ctx.actor)),
  /** Replaces the run's tags (the run page's Tags box). */
  setTags: operatorProcedure.input(SetTagsInput).mutation(({ ctx, input }) => setRunTags(ctx.db, input, ctx.actor)),
  /** Keeps the run whole whatever retention says (docs/operations.md#retention). */
  setPinned: operatorProcedure.input(PinInput).mutation(({ ctx, input }) => ctx.retention.setPinned(input.id, input.pinned, ctx.actor)),
});
