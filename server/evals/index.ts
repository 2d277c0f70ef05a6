// EvalGate (I5), SPEC section 1: golden sets, judges and the regression gate.
// So far only the statistics they rest on.
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
