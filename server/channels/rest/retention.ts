// REST v1 for retention (docs/operations.md#retention): how long each kind of
// data is kept, the pruner's progress, disk use, and pinning a run. The same
// service and role checks as Settings › Data and the run page.
import { z } from "zod";
import { DB_KINDS, FILE_KINDS, RETENTION_KINDS, RetentionChange, RetentionSettings } from "@/server/retention";
import { RUN_PARTS } from "@/server/kernel";
import { defineRoute, type Route } from "./contract";
import { Instant } from "./schemas";

const Counts = <K extends readonly [string, ...string[]]>(kinds: K) => z.partialRecord(z.enum(kinds), z.number().int());

const PassReport = z
  .object({
    startedAt: z.string(),
    endedAt: z.string().nullable().describe("null while the pass is under way"),
    runs: Counts(RUN_PARTS).describe("Runs that lost each part"),
    dropped: Counts(RETENTION_KINDS).describe("Rows dropped by kind (folders, for snapshots and workspaces)"),
    kept: z
      .number()
      .int()
      .describe("Ended runs past a cut-off kept whole: pinned, in a dataset, forked from, or the author of a change or an improvement"),
    error: z.string().nullable().describe("Why the pass stopped early; the next one goes on from where it was"),
  })
  .meta({ id: "RetentionPass" });

const Bytes = <K extends readonly [string, ...string[]]>(kinds: K) => z.record(z.enum(kinds), z.number());

const DiskUsage = z
  .object({
    measuredAt: z.string(),
    tookMs: z.number(),
    database: z.object({ dialect: z.enum(["sqlite", "postgres"]), totalBytes: z.number(), byKind: Bytes(DB_KINDS) }),
    files: z.object({ totalBytes: z.number(), byKind: Bytes(FILE_KINDS) }),
    byTeam: z.array(
      z.object({
        teamId: z.string().nullable().describe("null: runs of no team"),
        teamName: z.string().nullable(),
        runs: z.number().int(),
        databaseBytes: z.number().describe("The text of the team's runs' events, checkpoints and spans"),
        fileBytes: z.number().describe("The team's runs' workspaces, outputs and snapshots"),
      }),
    ),
  })
  .meta({ id: "DiskUsage" });

const RetentionStatus = z
  .object({
    settings: RetentionSettings,
    current: PassReport.nullable().describe("The pass under way, in any process"),
    lastPass: PassReport.nullable(),
    usage: DiskUsage.nullable().describe("The last measurement; null before the first"),
    measuring: z.boolean(),
    disk: z
      .object({
        free: z.number().describe("Bytes free on the data directory's file system"),
        total: z.number(),
        pausedRuns: z.number().int().describe("Runs paused because the disk was full; they resume when space is freed"),
      })
      .nullable(),
  })
  .meta({ id: "Retention" });

const Started = z.object({ started: z.boolean().describe("false: one was under way already") });

/** An empty body pins; so does null. */
const PinBody = z
  .object({ pinned: z.boolean({ error: "pinned is true or false" }).optional().describe("false unpins; true when absent") })
  .strict()
  .nullable();

export const RETENTION_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/retention",
    minRole: "admin",
    summary: "How long each kind of data is kept, the pruner's progress, and disk use",
    description: "Days after a run ended (or a row was written); null keeps a kind forever.",
    response: RetentionStatus,
    handle: ({ retention }) => retention.status(),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/retention",
    minRole: "admin",
    summary: "Change how long kinds of data are kept",
    description: "Send only the kinds that change: a number of days (1 to 36500), or null to keep that kind forever.",
    body: RetentionChange,
    response: RetentionSettings,
    handle: ({ body, actor, retention }) => retention.save(body, { id: actor.userId, name: actor.name }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/retention/prune",
    minRole: "admin",
    status: 202,
    summary: "Start a pruning pass now, in the background",
    description: "GET /api/v1/retention shows its progress. Passes also run every hour.",
    response: Started,
    handle: async ({ retention }) => ({ started: await retention.pruneNow() }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/retention/measure",
    minRole: "admin",
    status: 202,
    summary: "Measure disk use by kind and by team now, in the background",
    description: "GET /api/v1/retention shows the result. It is also measured once a day.",
    response: Started,
    handle: ({ retention }) => ({ started: retention.measureNow() }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/runs/{id}/pin",
    minRole: "operator",
    summary: "Pin a run (pinned=false unpins): a pinned run is kept whole, whatever retention says",
    description: "Parts retention dropped before the pin stay dropped.",
    body: PinBody,
    response: z.object({ id: z.string(), pinnedAt: Instant.nullable() }),
    handle: ({ params, body, actor, retention }) => retention.setPinned(params.id, body?.pinned ?? true, actor),
  }),
];
