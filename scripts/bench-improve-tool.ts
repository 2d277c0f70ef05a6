// The demo's runtime tool for bench:improve: the improver's proposal as the
// scripted demo makes it, and the same logic as a plain function.
import { BUILTIN_SCENARIOS } from "@/server/models";

const proposal = BUILTIN_SCENARIOS.improver.turns[0].toolCalls![0].args as Record<string, unknown> & { source: string };

/** The tool's own source run as a plain function, so both sides do the same work. */
const plain = new Function(`${proposal.source}\nreturn (csv, column) => run({ csv, column });`)() as (
  csv: string,
  column: string,
) => unknown;

export const IMPROVER_SCENARIO_TOOL = { proposal, plain };
