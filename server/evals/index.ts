// EvalGate (I5, docs/evals.md): golden sets (datasets), scorers, experiments
// that run a dataset's items as real runs, their results and comparisons, and
// the regression gate.
export {
  passAtK,
  passHatK,
  meanPassAtK,
  meanPassHatK,
  seededRandom,
  bootstrapCI,
  pairedBootstrap,
  mcnemarExact,
  compareOutcomes,
  type ItemSamples,
  type Random,
  type BootstrapOptions,
  type ConfidenceInterval,
  type PairedDifference,
  type OutcomePair,
  type OutcomeComparison,
} from "./stats";
export {
  parseScorer,
  parseScoring,
  score,
  scoreItem,
  scoringInputOf,
  loadScoringInput,
  SCORER_KINDS,
  SEQUENCE_MODES,
  ScorerConfigError,
  ScoringUnavailableError,
  type ScorerConfig,
  type Scoring,
  type ScoringInput,
  type ScoreResult,
  type SequenceMode,
  type ScoringExtras,
  type ScoredBy,
  type ItemVerdict,
} from "./scorers";
export {
  createJudgeClient,
  JudgeUnavailableError,
  type JudgeClient,
  type JudgeClientOptions,
  type JudgeRequest,
  type JudgeReply,
  type PriceLookup,
} from "./judge";
export {
  DatasetInput,
  DatasetPatch,
  ItemInput,
  ItemPatch,
  DatasetName,
  ItemKey,
  DATASET_NAME_PATTERN,
  type DatasetProblem,
  type ItemFields,
  type StoredScoring,
} from "./dataset-input";
export { DatasetError, type DatasetErrorCode } from "./dataset-errors";
export {
  listDatasets,
  getDataset,
  createDataset,
  updateDataset,
  setDatasetArchived,
  BUILT_IN_DATASET_REFUSAL,
  type DatasetActor,
  type DatasetView,
} from "./datasets";
export { listItems, itemHistory, addItem, editItem, removeItem, type ItemView } from "./dataset-items";
export {
  importJsonl,
  exportJsonl,
  parseJsonl,
  MAX_JSONL_BYTES,
  MAX_JSONL_LINES,
  MAX_JSONL_LINE_BYTES,
  MAX_JSONL_DEPTH,
  type ImportResult,
} from "./dataset-jsonl";
export { addItemFromRun, previewItemFromRun, MAX_EXPECTED_TEXT } from "./dataset-from-run";
export { scorerCatalog, type ScorerKindInfo } from "./scorers/catalog";
export { seedBuiltinDatasets, seedRegressionDemo, DEMO_DATASET, DEMO_ITEMS, DEMO_SCORING, REGRESSION_DEMO_AGENT } from "./demo-dataset";
export * from "./experiment-states";
export {
  startExperiment,
  listExperiments,
  getExperiment,
  cancelExperiment,
  deleteExperiment,
  evalWorkflow,
  StartExperimentInput,
  ListExperimentsInput,
  MAX_EPOCHS,
  MAX_CONCURRENCY,
  MAX_TRIALS,
  type ExperimentView,
  type ExperimentProgress,
  type ExperimentDeps,
  type CancelDeps,
} from "./experiments";
export { ExperimentRunner, MAX_TRIAL_TEXT, type ExperimentRunnerDeps } from "./runner";
export {
  experimentResults,
  summarize,
  summarizeItem,
  type ExperimentSummary,
  type ItemResult,
  type TrialResult,
  type ScorerSummary,
} from "./results";
export {
  scoreVerdict,
  experimentLabels,
  signedScore,
  MIN_VERDICT_ITEMS,
  type ScoreVerdict,
  type VerdictKind,
  type VerdictInput,
} from "./verdict";
export {
  compareExperiments,
  compareSummaries,
  oldestFirst,
  MAX_COMPARED,
  type Comparison,
  type CandidateComparison,
  type ComparedItem,
  type ComparedSide,
  type ItemChange,
} from "./compare";
export { EvalGate, checkGate, gateVerdict, type GateVerdict, type EvalGateDeps } from "./gate";
