// REST v1 for Evals experiments (docs/evals.md): the same services and checks
// as the Evals pages. Experiments are seen like runs (their team's members);
// operators of that team start and cancel them, admins delete them. `compare`
// and `gate` read finished results; the CLI's `eval run --gate` polls and then
// asks the gate.
import { z } from "zod";
import {
  MAX_COMPARED,
  cancelExperiment,
  checkGate,
  compareExperiments,
  deleteExperiment,
  experimentResults,
  getExperiment,
  listExperiments,
  startExperiment,
  EXPERIMENT_STATES,
  StartExperimentInput,
} from "@/server/evals";
import { defineRoute, type Route } from "./contract";
import { Instant, Ok, TeamRef } from "./schemas";

const ListQuery = z.object({
  datasetId: z.string().min(1).optional(),
  status: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(",").map((x) => x.trim()) : undefined))
    .pipe(z.array(z.enum(EXPERIMENT_STATES, { error: `status is a comma-separated list of ${EXPERIMENT_STATES.join(", ")}` })).optional())
    .describe("Comma-separated: queued, running, succeeded, failed, canceled"),
  limit: z.coerce.number({ error: "limit is a number" }).int().min(1, "limit is 1 or more").max(200, "limit is at most 200").default(50),
});
const CompareQuery = z.object({
  ids: z
    .string({ error: "ids is a comma-separated list of experiment ids" })
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string())
        .min(2, "Compare needs at least two experiments in ids")
        .max(MAX_COMPARED, `Compare takes at most ${MAX_COMPARED} experiments`),
    )
    .describe(`2 to ${MAX_COMPARED} experiment ids, comma-separated`),
  baseline: z.string().min(1, "baseline is empty").optional().describe("One of ids; the oldest (by creation time) when left out"),
});
const GateQuery = z.object({
  baseline: z
    .string({ error: "baseline is the id of the experiment to compare with" })
    .min(1, "baseline is empty")
    .describe("The id of the experiment to compare with"),
});

const Progress = z
  .object({
    total: z.number().int().describe("Trials: items × epochs"),
    pending: z.number().int(),
    running: z.number().int(),
    scoring: z.number().int(),
    done: z.number().int(),
    failed: z.number().int(),
    canceled: z.number().int(),
    passed: z.number().int(),
    costUsd: z.number().describe("USD so far, the running trials' runs included"),
  })
  .describe("The trials by state, how many passed, and the cost so far");

const Experiment = z
  .object({
    id: z.string(),
    name: z.string(),
    dataset: z.object({ id: z.string(), name: z.string() }),
    agent: z
      .object({ name: z.string(), version: z.number().int() })
      .nullable()
      .describe("The agent under test; null when each item ran with its own"),
    model: z.string().nullable(),
    epochs: z.number().int(),
    concurrency: z.number().int(),
    status: z.enum(EXPERIMENT_STATES),
    statusReason: z.string().nullable(),
    team: TeamRef.nullable().describe("The team its runs went to"),
    baselineId: z.string().nullable().describe("The experiment it is compared with by default"),
    createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
    createdAt: Instant,
    startedAt: Instant.nullable(),
    endedAt: Instant.nullable(),
    progress: Progress,
  })
  .meta({ id: "Experiment" });

/** A mean with its 95% bootstrap interval. */
const Interval = z.object({ mean: z.number(), low: z.number(), high: z.number() });
/** By k: the chance of at least one pass in k tries (pass@k), or of k passes in k tries (pass^k). */
const ByK = z.record(z.string(), z.number());

/** What a judge cost, where a scorer asked one. */
const judgeSpend = {
  costUsd: z.number().optional().describe("USD of the judge's priced calls"),
  model: z.string().optional().describe("The judge model(s) asked"),
};
const ScoredBy = z.object({
  kind: z.string(),
  weight: z.number(),
  required: z.boolean(),
  result: z.union([
    z.object({ score: z.number(), passed: z.boolean(), detail: z.string(), ...judgeSpend }),
    z.object({ skipped: z.literal(true), reason: z.string(), ...judgeSpend }),
  ]),
});

const Trial = z.object({
  itemKey: z.string(),
  epoch: z.number().int(),
  status: z.string(),
  runId: z.string().nullable(),
  runStatus: z.string().nullable(),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  costUsd: z.number(),
  durationMs: z.number().nullable(),
  modelCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  error: z.string().nullable(),
  scorers: z.array(ScoredBy),
  detail: z.string().nullable().describe("Why the item passed or not, in words"),
});

const ItemResult = z.object({
  key: z.string(),
  goal: z.string(),
  expectedText: z.string().nullable().describe("The item's expected text, when it has one"),
  epochs: z.array(Trial),
  samples: z.number().int().describe("Trials with a verdict"),
  passes: z.number().int().describe("Trials with a verdict that passed"),
  score: z.number().nullable().describe("The mean of its scored epochs; null when none was scored"),
  passed: z.boolean().describe("Passed in most of its scored epochs"),
  flaky: z.boolean().describe("Some epochs passed and some did not"),
  passAt: ByK,
  passHat: ByK,
  costUsd: z.number(),
  tokens: z.number().int(),
  durationMs: z.number().nullable(),
});

const summaryFields = {
  scorers: z.array(
    z.object({
      kind: z.string(),
      scored: z.number().int(),
      skipped: z.number().int(),
      passed: z.number().int(),
      meanScore: z.number().nullable(),
      histogram: z.array(z.number().int()).describe("Scores in five buckets: [0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1]"),
      skippedBecause: z.string().nullable().describe("Why it was skipped, the first time (e.g. no judge configured)"),
    }),
  ),
  score: Interval.nullable().describe(
    "Mean item score with its 95% bootstrap interval (items without a score count 0); null with no items",
  ),
  passRate: z.number().nullable().describe("Share of items that passed"),
  passAtK: ByK,
  passHatK: ByK,
  costUsd: z.number(),
  tokens: z.number().int(),
  latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  flaky: z.number().int().describe("Items that passed in some epochs and failed in others"),
  threshold: z.number(),
};

const ExperimentResults = z.object({ items: z.array(ItemResult), ...summaryFields }).meta({ id: "ExperimentResults" });
const ExperimentSummary = z.object(summaryFields).meta({ id: "ExperimentSummary" });

const ComparedSide = z.object({
  passed: z.boolean(),
  score: z.number().nullable(),
  flaky: z.boolean(),
  samples: z.number().int(),
  passes: z.number().int(),
  costUsd: z.number(),
  durationMs: z.number().nullable(),
  finalText: z.string().describe("The first epoch's final text"),
  toolSequence: z.array(z.string()).describe("The first epoch's tool calls, in order"),
  runIds: z.array(z.string()),
});

const Verdict = z
  .object({
    kind: z
      .enum(["better", "worse", "not_significant", "too_few", "none"])
      .describe("better or worse: the interval leaves out 0; too_few: one item; none: no item scored on both sides"),
    significant: z.boolean(),
    sentence: z
      .string()
      .describe(
        "The verdict in words, e.g. v2 scores 0.83 against 0.67 for v1 (+0.17, 95% interval −0.05 to +0.38): not significant with 6 items",
      ),
    items: z.number().int().describe("Items scored on both sides"),
    baselineMean: z.number().nullable(),
    candidateMean: z.number().nullable(),
    meanDiff: z.number().nullable(),
    low: z.number().nullable(),
    high: z.number().nullable(),
  })
  .describe("The one verdict on the scores: the paired-bootstrap 95% interval of the mean score difference, over the items both scored");

const Comparison = z.object({
  baseline: z.object({
    experimentId: z.string(),
    label: z.string().describe("Its short name: v1 when the experiments ran one agent at different versions, else its name"),
    chosen: z.boolean().describe("Named in the request; else it is the oldest experiment compared"),
    summary: ExperimentSummary,
  }),
  candidates: z.array(
    z.object({
      experimentId: z.string(),
      label: z.string(),
      verdict: Verdict,
      items: z.array(
        z.object({
          key: z.string(),
          goal: z.string(),
          expectedText: z.string().nullable(),
          change: z.enum(["regressed", "improved", "unchanged", "baseline_only", "candidate_only"]),
          itemChanged: z
            .boolean()
            .describe("The two sides ran different versions of the item: a change may be the edit's, not the agent's"),
          baseline: ComparedSide.nullable(),
          candidate: ComparedSide.nullable(),
          scoreDelta: z.number().nullable(),
          costDelta: z.number().nullable(),
          durationDelta: z.number().nullable(),
        }),
      ),
      outcomes: z.object({
        regressed: z.number().int().describe("Passed under the baseline, failed under the candidate"),
        improved: z.number().int().describe("Failed under the baseline, passed under the candidate"),
        unchanged: z.number().int(),
        pValue: z.number().describe("The exact McNemar p-value of regressed against improved"),
        significantlyWorse: z.boolean().describe("p below 0.05, and more items regressed than improved"),
      }),
      scores: z
        .object({ meanDiff: z.number(), low: z.number(), high: z.number(), pValue: z.number() })
        .nullable()
        .describe("Candidate minus baseline mean item score over the items both ran (paired bootstrap); null when they share none"),
      summary: ExperimentSummary,
    }),
  ),
});

const GateVerdict = z.object({
  passed: z.boolean(),
  reasons: z.array(z.string()).describe("Why it failed, in words; empty when it passed"),
  baselineId: z.string(),
  candidateId: z.string(),
  regressed: z
    .array(
      z.object({
        key: z.string(),
        goal: z.string(),
        scoreDelta: z.number().nullable(),
        baselineScore: z.number().nullable(),
        candidateScore: z.number().nullable(),
      }),
    )
    .describe("The items that passed under the baseline and fail under the candidate, worst first"),
  improved: z.number().int(),
  unchanged: z.number().int(),
  pValue: z.number().describe("Exact McNemar p-value of regressed against improved items"),
  scoreDiff: Interval.nullable().describe("Candidate minus baseline mean item score, with its 95% interval"),
  candidateScore: z.number().nullable(),
  threshold: z.number(),
});

export const EXPERIMENT_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/experiments",
    minRole: "viewer",
    summary: "Evals experiments you can see, newest first, with their progress",
    description: "Experiments are seen like runs: the members of the team their runs went to, and whoever started them (admins: all).",
    query: ListQuery,
    response: z.object({ experiments: z.array(Experiment) }),
    handle: async ({ query, actor, db }) => ({ experiments: await listExperiments(db, actor, query) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/experiments",
    minRole: "operator",
    status: 201,
    summary: "Start an experiment: every item of a dataset × epochs runs as a real run, then is scored",
    description:
      "Without agent, each item runs with its own agent (latest version now); with agent (and optionally agentVersion) every item runs with it. Items with a scenario play it on the scripted model; the others use model when given (<provider>/<model id>, or auto for the routing rules). The runs go to teamId (as New run picks it when left out), counted under the workflow eval:<dataset>. baselineId: the experiment of the same dataset it is compared with by default. Returns at once; follow GET /api/v1/experiments/{id}.",
    body: StartExperimentInput,
    response: Experiment,
    responseDescription: "The experiment, queued",
    handle: ({ body, actor, channel, db, kernel, experiments }) =>
      startExperiment({ db, specs: kernel.specs, wake: experiments.wake }, { actor, channel }, body),
  }),
  // Before /experiments/{id}, which would take "compare" for an id.
  defineRoute({
    method: "GET",
    path: "/api/v1/experiments/compare",
    minRole: "viewer",
    summary: "Compare experiments of one dataset item by item against a baseline",
    description:
      "Each candidate's items are regressed (passed under the baseline, fail now), improved, unchanged, or on one side only, regressions first; with output and tool sequences for diffs, cost and latency deltas, the exact McNemar test on pass/fail, and one verdict on the scores (their paired-bootstrap 95% interval).",
    query: CompareQuery,
    response: Comparison,
    handle: ({ query, actor, db }) => compareExperiments(db, actor, query.ids, query.baseline),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/experiments/{id}",
    minRole: "viewer",
    summary: "An experiment and its progress (trials pending, running, scoring, done, failed; passed; cost so far)",
    response: Experiment,
    handle: ({ params, actor, db }) => getExperiment(db, actor, params.id),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/experiments/{id}/results",
    minRole: "viewer",
    summary:
      "An experiment's results: per item scores, pass@k and pass^k, cost, tokens, latency; per scorer; the mean score with a 95% bootstrap interval",
    response: ExperimentResults,
    handle: ({ params, actor, db }) => experimentResults(db, actor, params.id),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/experiments/{id}/gate",
    minRole: "viewer",
    summary: "The regression gate: may this finished experiment replace the baseline?",
    description:
      "Fails when the experiment is significantly worse than the baseline (McNemar p < 0.05 with more regressions, or the score difference's 95% interval below 0) or its mean score is under the dataset's threshold.",
    query: GateQuery,
    response: GateVerdict,
    errors: { 409: "One of the two experiments is still queued or running; the gate checks finished experiments" },
    handle: ({ params, query, actor, db }) => checkGate(db, actor, params.id, query.baseline),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/experiments/{id}/cancel",
    minRole: "operator",
    summary: "Cancel an experiment: pending items never start, running ones' runs are canceled; finished items keep their scores",
    response: Experiment,
    errors: { 409: "The experiment has ended; only a queued or running one can be canceled" },
    handle: ({ params, actor, channel, db, kernel }) =>
      cancelExperiment(
        { db, cancelRun: (runId, by) => kernel.pool.cancel(runId, { id: by.userId, name: by.name || by.email }) },
        { actor, channel },
        params.id,
      ),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/experiments/{id}",
    minRole: "admin",
    summary: "Delete a finished experiment and its results; its runs stay in Runs",
    response: Ok,
    errors: { 409: "The experiment is still going; cancel it first" },
    handle: ({ params, actor, channel, db }) => deleteExperiment(db, { actor, channel }, params.id),
  }),
];
