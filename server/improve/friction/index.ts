// The friction miner (docs/improvements.md): observations of what went wrong in a run, from its event log.
export type { FrictionKind, FrictionEvidence, FrictionObservation, MinerOptions } from "./types";
export { DEFAULT_MINER_OPTIONS } from "./types";
export { RunFrictionMiner, mineRun, BUDGET_STOP_CODES } from "./miner";
export { errorClass, failureOf, type ToolResultLike, type Failure } from "./error-class";
export { benchMiner, type MinerBench } from "./bench";
export { signalOnlyBecause } from "./signals";
