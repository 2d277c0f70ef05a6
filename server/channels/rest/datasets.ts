// REST v1 for Evals datasets (docs/evals.md): the same service, checks and
// audit as the Evals pages. Everyone sees their teams' datasets and
// everyone's; changing one needs the operator role in its team (an admin for
// everyone's), archiving (DELETE) an admin. Items travel as JSON, or as JSONL
// files (export, import).
import { Readable } from "node:stream";
import { z } from "zod";
import {
  DatasetInput,
  DatasetPatch,
  ItemInput,
  ItemPatch,
  MAX_JSONL_BYTES,
  addItem,
  createDataset,
  editItem,
  exportJsonl,
  getDataset,
  importJsonl,
  listDatasets,
  listItems,
  removeItem,
  setDatasetArchived,
  updateDataset,
} from "@/server/evals";
import { defineRoute, fileResponse, type Route } from "./contract";
import { StreamBody } from "./http";
import { Instant, JsonValue, Ok, TeamRef } from "./schemas";

const ListQuery = z.object({
  includeArchived: z
    .enum(["true", "false"], { error: "includeArchived is true or false" })
    .optional()
    .describe("true: archived datasets too (default false)"),
});
const ImportBody = z.object({ jsonl: z.string({ error: "jsonl is the file's text, one item a line" }).describe("The JSONL file's text") });
/** The JSONL file, escaped in a JSON body, with room for its quoting. */
const MAX_IMPORT_BODY = MAX_JSONL_BYTES * 2;

const Scoring = z.object({
  scorers: z.array(z.record(z.string(), JsonValue)).describe("Scorer configs { kind, weight?, required?, ...settings }"),
  threshold: z.number().describe("The weighted mean score an item needs to pass, 0 to 1"),
});

const Dataset = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    teamId: z.string().nullable().describe("The team that sees it; null: everyone"),
    team: TeamRef.nullable(),
    scoring: Scoring,
    builtIn: z.boolean().describe("Shipped with Rein; cannot be changed (export it and import it into a dataset of your own)"),
    archived: z.boolean(),
    itemCount: z.number().int().describe("Items in the dataset now (each key's latest version, removed ones left out)"),
    createdAt: Instant,
    updatedAt: Instant,
    createdBy: z.string().nullable().describe("The name of the person who created it"),
  })
  .meta({ id: "Dataset" });

const DatasetItem = z
  .object({
    key: z.string().describe("Stable across the item's versions"),
    version: z.number().int(),
    goal: z.string(),
    agent: z.string().nullable().describe("The agent it runs with when an experiment names none"),
    scenario: JsonValue.describe("A scenario for the scripted model; null when the item has none"),
    expected: z
      .record(z.string(), JsonValue)
      .describe("The expected outcome: outcome, text, notes; scorers checked for this item besides the dataset's"),
    sourceRunId: z.string().nullable().describe("The run the item was made from"),
    createdAt: Instant,
    deleted: z.boolean().describe("The version is a removal mark (history only)"),
  })
  .meta({ id: "DatasetItem" });

const DATASET_FIELDS =
  "name: 2 to 64 lowercase letters, digits and dashes; description: at most 500 characters; teamId: the team that sees it, null for everyone (admins only); scoring: { scorers: [{ kind, weight?, required?, ...settings }], threshold (0 to 1, default 1) }.";
const ITEM_FIELDS =
  "key: stable across the item's versions; goal; agent; scenario: a scenario for the scripted model; expected: the expected outcome (outcome, text, notes; scorers checked for this item besides the dataset's).";

export const DATASET_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/datasets",
    minRole: "viewer",
    summary: "The Evals datasets you can see",
    description: "Your teams' datasets and everyone's (admins: all). Archived ones only with includeArchived=true.",
    query: ListQuery,
    response: z.object({ datasets: z.array(Dataset) }),
    handle: async ({ query, actor, db }) => ({
      datasets: await listDatasets(db, actor, { includeArchived: query.includeArchived === "true" }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/datasets",
    minRole: "operator",
    status: 201,
    summary: "Create a dataset",
    description: `Needs the operator role in its team; a dataset for everyone (teamId null) needs an admin. The scoring's scorers and threshold are checked; each problem comes back in error.issues. ${DATASET_FIELDS}`,
    body: DatasetInput,
    response: Dataset,
    responseDescription: "The dataset",
    errors: { 409: "There is already a dataset of that name" },
    handle: ({ body, actor, channel, db }) => createDataset(db, { actor, channel }, body),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/datasets/{id}",
    names: { id: "dataset" },
    minRole: "viewer",
    summary: "A dataset: its settings, scoring and number of items",
    response: Dataset,
    handle: ({ params, actor, db }) => getDataset(db, actor, params.id),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/datasets/{id}",
    names: { id: "dataset" },
    minRole: "operator",
    summary: "Change a dataset's name, description, team or scoring",
    description: `Send only what changes. Built-in datasets cannot be changed. ${DATASET_FIELDS}`,
    body: DatasetPatch,
    response: Dataset,
    responseDescription: "The dataset",
    errors: { 409: "There is already a dataset of that name" },
    handle: ({ body, params, actor, channel, db }) => updateDataset(db, { actor, channel }, params.id, body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/datasets/{id}",
    names: { id: "dataset" },
    minRole: "admin",
    summary: "Archive a dataset: hidden from the list; its items and the experiments that ran them stay",
    response: Ok,
    handle: ({ params, actor, channel, db }) => setDatasetArchived(db, { actor, channel }, params.id, true),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/datasets/{id}/items",
    names: { id: "dataset" },
    minRole: "viewer",
    summary: "A dataset's items: each key's latest version",
    response: z.object({ items: z.array(DatasetItem) }),
    handle: async ({ params, actor, db }) => ({ items: await listItems(db, actor, params.id) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/datasets/{id}/items",
    names: { id: "dataset" },
    minRole: "operator",
    status: 201,
    summary: "Add an item (a key is made when none is given: item-1, item-2, ...)",
    description: ITEM_FIELDS,
    body: ItemInput,
    response: DatasetItem,
    responseDescription: "The item, version 1",
    errors: { 409: "The dataset already has an item with that key" },
    handle: ({ body, params, actor, channel, db }) => addItem(db, { actor, channel }, params.id, body),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/datasets/{id}/items/{key}",
    names: { id: "dataset" },
    minRole: "operator",
    summary: "Edit an item: saves its next version (nothing when equal to the latest)",
    description: "Send the fields that change; agent or scenario null clears them. Earlier versions stay.",
    body: ItemPatch,
    response: DatasetItem,
    responseDescription: "The item at its latest version",
    handle: ({ body, params, actor, channel, db }) => editItem(db, { actor, channel }, params.id, params.key, body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/datasets/{id}/items/{key}",
    names: { id: "dataset" },
    minRole: "operator",
    summary: "Remove an item: its latest version is marked removed; its history stays",
    response: Ok,
    handle: ({ params, actor, channel, db }) => removeItem(db, { actor, channel }, params.id, params.key),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/datasets/{id}/export",
    names: { id: "dataset" },
    minRole: "viewer",
    summary: "A dataset's items as JSONL, one item a line",
    response: fileResponse(
      "application/x-ndjson",
      "One { key, goal, agent?, scenario?, expected } a line (Content-Disposition: attachment; filename=<name>.jsonl)",
    ),
    async handle({ params, actor, db }) {
      const { filename, jsonl } = await exportJsonl(db, actor, params.id);
      return new StreamBody(Readable.from([Buffer.from(jsonl, "utf8")]), {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
      });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/datasets/{id}/import",
    names: { id: "dataset" },
    minRole: "operator",
    summary: "Import items from JSONL: a known key gets its next version, other lines become new items",
    description:
      'At most 5 MB and 10,000 lines. Every line is checked first; any bad line imports nothing and error.issues lists each problem by line ("line 3: goal is required").',
    body: ImportBody,
    bodyLimit: MAX_IMPORT_BODY,
    response: z.object({
      added: z.number().int(),
      edited: z.number().int(),
      unchanged: z.number().int(),
    }),
    errors: { 413: "The file is larger than 5 MB or has more than 10,000 lines" },
    handle: ({ body, params, actor, channel, db }) => importJsonl(db, { actor, channel }, params.id, body.jsonl),
  }),
];
