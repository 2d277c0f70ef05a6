// ask_human (docs/human-requests-and-policy.md#where-requests-come-from): the
// agent asks a person to choose, provide a value, approve, or not veto. The
// HITL gate turns the call into a human request; the answer is the tool's
// output.
import { z } from "zod";
import { schemaPatternProblems } from "@/server/patterns";
import { ToolError, type HumanQuestion, type ToolDefinition } from "../types";

const Option = z
  .object({ id: z.string().min(1).max(100), label: z.string().min(1).max(500), detail: z.string().max(20_000).optional() })
  .strict();

const AskHumanArgs = z
  .object({
    kind: z.enum(["choose", "provide", "approve", "veto"]),
    question: z.string().min(1).max(500),
    detail: z.string().max(20_000).optional(),
    options: z.array(Option).min(2).max(20).optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    ttlSec: z
      .number()
      .int()
      .min(5)
      .max(7 * 24 * 3600)
      .optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.kind === "choose" && !a.options)
      ctx.addIssue({ code: "custom", path: ["options"], message: "choose needs at least two options" });
    if (a.kind === "choose" && a.options && new Set(a.options.map((o) => o.id)).size !== a.options.length) {
      ctx.addIssue({ code: "custom", path: ["options"], message: "option ids must be unique" });
    }
    if (a.kind === "provide" && !a.schema)
      ctx.addIssue({ code: "custom", path: ["schema"], message: "provide needs a JSON schema for the value" });
    // Patterns run in linear time (RE2 syntax): one that cannot is refused now, so the model can rewrite it.
    for (const problem of a.schema ? schemaPatternProblems(a.schema) : [])
      ctx.addIssue({ code: "custom", path: ["schema"], message: problem });
  });

type AskHumanArgs = z.infer<typeof AskHumanArgs>;

export const askHuman: ToolDefinition<AskHumanArgs> = {
  name: "ask_human",
  description:
    "Ask a person and wait for the answer. kind=choose: pick one of `options`; kind=provide: a value matching the JSON `schema`; " +
    "kind=approve: yes or no; kind=veto: goes ahead unless someone vetoes within ttlSec. Returns the answer.",
  args: AskHumanArgs,
  replayClass: "pure",
  persistence: "none",
  asksHuman(args): HumanQuestion {
    return { kind: args.kind, title: args.question, detail: args.detail, options: args.options, schema: args.schema, ttlSec: args.ttlSec };
  },
  async execute() {
    // The gate answers ask_human; reaching this means no HITL broker is configured.
    throw new ToolError("NO_HUMANS", "Nobody can be asked here: this Rein has no human-request broker configured");
  },
};
