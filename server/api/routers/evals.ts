// evals.*: the Evals pages. Everyone sees their teams' datasets and
// everyone's; changing one needs the operator role in its team (an admin for
// everyone's), archiving an admin. Experiments are seen like runs (their
// team's members); operators of that team start and cancel them, admins
// delete them. The services check the team; the procedures the least role.
import { z } from "zod";
import {
  addItem,
  addItemFromRun,
  createDataset,
  editItem,
  exportJsonl,
  getDataset,
  importJsonl,
  itemHistory,
  listDatasets,
  listItems,
  previewItemFromRun,
  removeItem,
  scorerCatalog,
  setDatasetArchived,
  updateDataset,
  cancelExperiment,
  checkGate,
  compareExperiments,
  deleteExperiment,
  experimentResults,
  getExperiment,
  listExperiments,
  startExperiment,
  ListExperimentsInput,
  MAX_COMPARED,
  type DatasetActor,
} from "@/server/evals";
import type { Actor } from "@/server/identity";
import { adminProcedure, operatorProcedure, router, viewerProcedure } from "../trpc";

/** An object as sent; the service checks its fields and reports every problem by field. */
const Fields = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "Send the dataset's fields as an object",
);
const Id = z.object({ id: z.string().min(1, "Name the dataset by its id") });
const DatasetId = z.object({ datasetId: z.string().min(1, "Name the dataset by its id") });
const ItemRef = DatasetId.extend({ key: z.string().min(1, "Name the item by its key").max(64, "An item's key is at most 64 characters") });

const ListInput = z.object({ includeArchived: z.boolean().optional() }).optional();
/** The dataset or item named, and the fields sent beside it (checked by the service). */
const UpdateInput = z.looseObject(Id.shape);
const AddItemInput = z.looseObject(DatasetId.shape);
const EditItemInput = z.looseObject(ItemRef.shape);
const RunId = z.object({ runId: z.string().min(1, "Name the run") });
/** The key and the expected outcome may replace the prefilled ones (checked by the service). */
const FromRunInput = DatasetId.extend({ ...RunId.shape, key: z.unknown().optional(), expected: z.unknown().optional() });
const ImportInput = DatasetId.extend({ jsonl: z.string({ error: "Paste or upload the JSONL file" }) });
const ExperimentId = z.object({ id: z.string().min(1, "Name the experiment by its id") });
const CompareInput = z.object({
  ids: z
    .array(z.string().min(1))
    .min(2, "Compare needs at least two experiments")
    .max(MAX_COMPARED, `Compare takes at most ${MAX_COMPARED} experiments`),
  baselineId: z.string().min(1, "The baseline is empty").optional(), // the oldest when left out
});
const GateInput = z.object({
  candidateId: z.string().min(1, "Name the experiment to check"),
  baselineId: z.string().min(1, "Name the baseline"),
});

/** The audit log's channel: the UI, or a program with a token. */
const who = (actor: Actor): DatasetActor => ({ actor, channel: actor.via === "session" ? "admin" : actor.via === "token" ? "api" : "cli" });

export const evalsRouter = router({
  datasets: router({
    list: viewerProcedure.input(ListInput).query(({ ctx, input }) => listDatasets(ctx.db, ctx.actor, input ?? {})),
    get: viewerProcedure.input(Id).query(({ ctx, input }) => getDataset(ctx.db, ctx.actor, input.id)),
  }),
  createDataset: operatorProcedure.input(Fields).mutation(({ ctx, input }) => createDataset(ctx.db, who(ctx.actor), input)),
  updateDataset: operatorProcedure.input(UpdateInput).mutation(({ ctx, input }) => {
    const { id, ...changes } = input;
    return updateDataset(ctx.db, who(ctx.actor), id, changes);
  }),
  archiveDataset: adminProcedure.input(Id).mutation(({ ctx, input }) => setDatasetArchived(ctx.db, who(ctx.actor), input.id, true)),
  unarchiveDataset: adminProcedure.input(Id).mutation(({ ctx, input }) => setDatasetArchived(ctx.db, who(ctx.actor), input.id, false)),
  items: viewerProcedure.input(DatasetId).query(({ ctx, input }) => listItems(ctx.db, ctx.actor, input.datasetId)),
  itemHistory: viewerProcedure.input(ItemRef).query(({ ctx, input }) => itemHistory(ctx.db, ctx.actor, input.datasetId, input.key)),
  addItem: operatorProcedure.input(AddItemInput).mutation(({ ctx, input }) => {
    const { datasetId, ...item } = input;
    return addItem(ctx.db, who(ctx.actor), datasetId, item);
  }),
  editItem: operatorProcedure.input(EditItemInput).mutation(({ ctx, input }) => {
    const { datasetId, key, ...changes } = input;
    return editItem(ctx.db, who(ctx.actor), datasetId, key, changes);
  }),
  removeItem: operatorProcedure.input(ItemRef).mutation(({ ctx, input }) => removeItem(ctx.db, who(ctx.actor), input.datasetId, input.key)),
  addFromRun: operatorProcedure.input(FromRunInput).mutation(({ ctx, input }) => addItemFromRun(ctx.kernel, who(ctx.actor), input)),
  importJsonl: operatorProcedure
    .input(ImportInput)
    .mutation(({ ctx, input }) => importJsonl(ctx.db, who(ctx.actor), input.datasetId, input.jsonl)),
  exportJsonl: viewerProcedure.input(DatasetId).query(({ ctx, input }) => exportJsonl(ctx.db, ctx.actor, input.datasetId)),
  experiments: router({
    list: viewerProcedure.input(ListExperimentsInput).query(({ ctx, input }) => listExperiments(ctx.db, ctx.actor, input ?? {})),
    get: viewerProcedure.input(ExperimentId).query(({ ctx, input }) => getExperiment(ctx.db, ctx.actor, input.id)),
    results: viewerProcedure.input(ExperimentId).query(({ ctx, input }) => experimentResults(ctx.db, ctx.actor, input.id)),
    compare: viewerProcedure
      .input(CompareInput)
      .query(({ ctx, input }) => compareExperiments(ctx.db, ctx.actor, input.ids, input.baselineId)),
    gate: viewerProcedure.input(GateInput).query(({ ctx, input }) => checkGate(ctx.db, ctx.actor, input.candidateId, input.baselineId)),
  }),
  startExperiment: operatorProcedure
    .input(Fields)
    .mutation(({ ctx, input }) =>
      startExperiment({ db: ctx.db, specs: ctx.kernel.specs, wake: ctx.experiments.wake }, who(ctx.actor), input),
    ),
  cancelExperiment: operatorProcedure
    .input(ExperimentId)
    .mutation(({ ctx, input }) =>
      cancelExperiment(
        { db: ctx.db, cancelRun: (runId, actor) => ctx.kernel.pool.cancel(runId, { id: actor.userId, name: actor.name || actor.email }) },
        who(ctx.actor),
        input.id,
      ),
    ),
  deleteExperiment: adminProcedure.input(ExperimentId).mutation(({ ctx, input }) => deleteExperiment(ctx.db, who(ctx.actor), input.id)),
  /** The scorer kinds this server knows, with each kind's settings: the scoring editor's choices. */
  scorerKinds: viewerProcedure.query(() => scorerCatalog()),
  /** What addFromRun would add for a finished run, so the person sees and edits it first. */
  previewFromRun: operatorProcedure.input(RunId).query(({ ctx, input }) => previewItemFromRun(ctx.kernel, ctx.actor, input.runId)),
});
