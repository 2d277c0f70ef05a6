// Judges: a model of another family than the agent's scores the run's final
// text by a rubric (`judge`), or compares it with the item's reference answer
// in both orders (`judge_pairwise`). With no judge to ask, they are skipped
// with the reason, never given a made-up verdict.
import { z } from "zod";
import type { JudgeClient, JudgeReply } from "../judge";
import { judgePrompt, pairwisePrompt, parsePairVerdict, parseScoreVerdict, MAX_JUDGED_CHARS, type PairVerdict } from "./judge-prompt";
import { defineScorer, type ScoreResult, type ScoringInput } from "./types";

const JudgeSettings = z.object({
  rubric: z
    .string({ error: "rubric is what the judge checks; write it in a sentence or more" })
    .trim()
    .min(1, "rubric is empty: write what the judge checks in a sentence or more")
    .max(4_000, "rubric is at most 4,000 characters"),
  passAt: z
    .number({ error: "passAt is the score from 0 to 1 at which the judge's verdict passes" })
    .min(0, "passAt is a score from 0 to 1")
    .max(1, "passAt is a score from 0 to 1")
    .default(0.5),
  model: z
    .string({ error: 'model is the judge model to ask first, "<provider>/<model id>"' })
    .trim()
    .max(200, "model is at most 200 characters")
    .regex(/^[a-z0-9][a-z0-9._-]*\/\S+$/, 'model is the judge model to ask first, "<provider>/<model id>"')
    .refine(
      (m) => !m.startsWith("scripted/"),
      "model cannot be scripted: the scripted model never judges; name a configured model of another family than the agent's",
    )
    .optional(),
});
type JudgeSettings = z.output<typeof JudgeSettings>;

function judgeOf(input: ScoringInput): JudgeClient | ScoreResult {
  return input.judge ?? { skipped: true, reason: "no judge can be asked here: this scoring was given no model router" };
}

const isResult = (x: JudgeClient | ScoreResult): x is ScoreResult => "skipped" in x;

/** The judges' cost and model, for the experiment's bill: priced calls only. */
function spent(replies: JudgeReply[]): { costUsd?: number; model?: string } {
  const priced = replies.filter((r) => r.costUsd !== null);
  return {
    ...(priced.length ? { costUsd: Math.round(priced.reduce((s, r) => s + r.costUsd!, 0) * 1e8) / 1e8 } : {}),
    ...(replies.length ? { model: [...new Set(replies.map((r) => r.model))].join(", ") } : {}),
  };
}

const shown = (text: string) =>
  text.length > MAX_JUDGED_CHARS ? ` (it saw the first ${MAX_JUDGED_CHARS.toLocaleString("en")} characters of the final text)` : "";

export const judge = defineScorer({
  kind: "judge",
  settings: JudgeSettings,
  async score(input, config: JudgeSettings) {
    const client = judgeOf(input);
    if (isResult(client)) return client;
    if (!input.finalText.trim()) return { score: 0, passed: false, detail: "the run wrote no final text, so there is nothing to judge" };
    const prompt = judgePrompt({ goal: input.goal, expectedText: input.expected?.text, answer: input.finalText, rubric: config.rubric });
    const reply = await client.ask({ system: prompt.system, user: prompt.user, model: config.model });
    const verdict = parseScoreVerdict(reply.text);
    if (!verdict.ok)
      return {
        score: 0,
        passed: false,
        detail: `the judge (${reply.label}) gave no usable verdict: ${verdict.problem}`,
        ...spent([reply]),
      };
    const { score, reason } = verdict.value;
    const passed = score >= config.passAt;
    return {
      score,
      passed,
      detail: `the judge (${reply.label}) scored ${score.toFixed(2)}, ${passed ? "at or over" : "under"} ${config.passAt}${shown(input.finalText)}: ${reason}`,
      ...spent([reply]),
    };
  },
});

type Side = "run" | "reference" | "tie";

const WORDS: Record<Side, string> = { run: "the run's answer is better", reference: "the reference is better", tie: "a tie" };
const FOUND: Record<Side, string> = {
  run: "preferred the run's answer to the reference",
  reference: "preferred the reference to the run's answer",
  tie: "called it a tie",
};

export const judgePairwise = defineScorer({
  kind: "judge_pairwise",
  settings: JudgeSettings,
  async score(input, config: JudgeSettings) {
    const reference = input.expected?.text ?? "";
    if (!reference.trim()) return { skipped: true, reason: "the item has no expected text to compare the run's answer with" };
    const client = judgeOf(input);
    if (isResult(client)) return client;
    if (!input.finalText.trim()) return { score: 0, passed: false, detail: "the run wrote no final text, so there is nothing to compare" };
    const replies: JudgeReply[] = [];
    const sides: Side[] = [];
    const verdicts: PairVerdict[] = [];
    // The same question twice, the answers swapped: a judge that favours a position disagrees with itself.
    for (const runIsA of [true, false]) {
      const prompt = pairwisePrompt({
        goal: input.goal,
        a: runIsA ? input.finalText : reference,
        b: runIsA ? reference : input.finalText,
        rubric: config.rubric,
      });
      const reply = await client.ask({ system: prompt.system, user: prompt.user, model: config.model });
      replies.push(reply);
      const verdict = parsePairVerdict(reply.text);
      if (!verdict.ok) {
        const order = runIsA ? "with the run's answer as A" : "with the run's answer as B";
        return {
          score: 0,
          passed: false,
          detail: `the judge (${reply.label}) gave no usable verdict ${order}: ${verdict.problem}`,
          ...spent(replies),
        };
      }
      verdicts.push(verdict.value);
      const w = verdict.value.winner;
      sides.push(w === "tie" ? "tie" : (w === "A") === runIsA ? "run" : "reference");
    }
    const [first, second] = sides;
    if (first !== second) {
      return {
        skipped: true,
        reason: `the judge's two orders disagreed (run as A: ${WORDS[first]}; run as B: ${WORDS[second]}), so there is no verdict`,
        ...spent(replies),
      };
    }
    const score = first === "run" ? 1 : first === "tie" ? 0.5 : 0;
    const passed = score >= config.passAt;
    const label = replies[0].label;
    return {
      score,
      passed,
      detail: `the judge (${label}) ${FOUND[first]} in both orders${shown(input.finalText)}; its reason with the run's answer as A: ${verdicts[0].reason}`,
      ...spent(replies),
    };
  },
});
