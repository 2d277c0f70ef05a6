// What a scorer sees of a finished run, and what it answers (Evals: scorers).
import type { z } from "zod";
import type { RunState } from "@/server/kernel";
import type { JudgeClient } from "../judge";

/** One tool call of the run, in the order the run made them. */
export interface ToolCallRecord {
  tool: string;
  args: unknown;
  /** The call returned a result; false when it failed, was refused, or never finished. */
  ok: boolean;
}

export interface CommandResult {
  exitCode: number;
  /** The command's output as plain text, tail kept when long. */
  output: string;
  /** The command ran past its time limit and was stopped. */
  timedOut: boolean;
}

export interface ScoringInput {
  runId: string;
  status: RunState;
  /** Why the run ended as it did (its error message), when it says. */
  statusReason: string | null;
  /** The last text the model wrote in the run ("" when it wrote none). */
  finalText: string;
  /** USD; null when the run's cost is not known. */
  costUsd: number | null;
  /** Model calls made, failed ones included. */
  modelCalls: number;
  /** From start to end; null when the run never started. */
  durationMs: number | null;
  toolCalls: ToolCallRecord[];
  /** A text file of the final workspace, through the sandboxed file service; throws WorkspaceFileError. */
  readText(path: string): Promise<string>;
  /** Is there a file or folder at the path of the final workspace (through the same service)? */
  exists(path: string): Promise<boolean>;
  /** Runs a command in the final workspace, in the run's sandbox; throws ScoringUnavailableError when it cannot. */
  exec(command: string, timeoutSec: number): Promise<CommandResult>;
  /** The goal the run was given (judges show it to the judge). */
  goal?: string;
  /** The dataset item's expected outcome: `text` is what judges compare with or look at. */
  expected?: { text?: string };
  /** The model that wrote the final text: "<provider>/<model id>" or "scripted/<scenario>". */
  agentModel?: string | null;
  /** Asks a judge of another family than the agent's model; without it, judge scorers are skipped. */
  judge?: JudgeClient;
}

/** What a scorer spent asking a judge, for the experiment's bill. */
interface JudgeSpend {
  /** USD of the judge's priced calls. */
  costUsd?: number;
  /** The judge model(s) asked, "<provider>/<model id>". */
  model?: string;
}

export type ScoreResult =
  ({ score: number; passed: boolean; detail: string } & JudgeSpend) | ({ skipped: true; reason: string } & JudgeSpend);

/** What this server cannot check (no sandbox, no workspace service): the scorer is skipped, with why. */
export class ScoringUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScoringUnavailableError";
  }
}

/** A scorer configuration that cannot be used; `problems` are in a person's words. */
export class ScorerConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "ScorerConfigError";
  }
}

/** One kind of scorer: its settings' schema and how it scores. */
export interface ScorerKind<S extends z.ZodObject = z.ZodObject> {
  kind: string;
  /** The kind's own settings (the base ones are added by the registry). */
  settings: S;
  /** Checks beyond the schema (patterns RE2 can run); problems in a person's words. */
  check?(config: z.output<S>): string[];
  score(input: ScoringInput, config: z.output<S>): Promise<ScoreResult>;
}

export function defineScorer<S extends z.ZodObject>(kind: ScorerKind<S>): ScorerKind<S> {
  return kind;
}

export const passFail = (passed: boolean, detail: string): ScoreResult => ({ score: passed ? 1 : 0, passed, detail });
