// Agent specs as YAML files, to keep in a repository or move between
// servers: export writes AgentSpecInput's fields (an exact round trip: the
// file imports back to the same spec); import reads a file with limits on its
// size, nesting and aliases, then creates the agent or saves a new version
// through the same checks as the Agents page.
import { Document, parseDocument } from "yaml";
import { agentVisibleTo } from "@/server/kernel";
import { AgentError } from "./errors";
import type { AgentSpecFields } from "./input";
import { createAgent, saveAgent, type AgentActor } from "./service";
import type { AgentDeps } from "./validate";
import { agentRowOf, getAgent, type AgentView } from "./views";

export const MAX_YAML_BYTES = 256 * 1024;
/** Flow collections ([ { ) open at once before parsing is refused: the parser recurses on them. */
const MAX_FLOW_DEPTH = 256;
const MAX_ALIASES = 100;
const MAX_DEPTH = 16;

export function specToYaml(spec: AgentSpecFields, version: number): string {
  const doc = new Document(inFileOrder(spec));
  doc.commentBefore = ` Rein agent spec: ${spec.name}, version ${version}.\n Import it with: npm run rein -- agents import FILE --note "..."`;
  return doc.toString({ lineWidth: 0, blockQuote: "literal" });
}

export async function exportAgentYaml(
  deps: AgentDeps,
  who: AgentActor,
  name: string,
  version?: number,
): Promise<{ filename: string; yaml: string }> {
  const view = await getAgent(deps.db, who.actor, name, version);
  return { filename: `${view.name}.agent.yaml`, yaml: specToYaml(view, view.version) };
}

/** The spec's fields alone, in the order a file lists them: the short settings first, the instructions last. */
function inFileOrder(spec: AgentSpecFields): AgentSpecFields {
  const { name, description, model, taskClass, complexity, tier, teamId, tools, handoffs, secrets, guardrails, instructions } = spec;
  const { callCap, costCeilingUsd, maxRepeats, maxFailingSteps } = guardrails;
  const limits = Object.fromEntries(
    Object.entries({ callCap, costCeilingUsd, maxRepeats, maxFailingSteps }).filter(([, v]) => v !== undefined),
  );
  return {
    name,
    description,
    model,
    taskClass,
    ...(complexity !== undefined ? { complexity } : {}),
    tier,
    teamId,
    tools,
    handoffs,
    secrets,
    guardrails: limits,
    instructions,
  };
}

const unreadable = (why: string) =>
  new AgentError("INVALID_INPUT", `The YAML cannot be read: ${why}`, [{ field: "yaml", message: `The YAML cannot be read: ${why}` }]);

function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

/** How deep a parsed value nests, without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length) {
    const { v, d } = stack.pop()!;
    max = Math.max(max, d);
    if (v !== null && typeof v === "object" && d <= MAX_DEPTH) for (const x of Object.values(v)) stack.push({ v: x, d: d + 1 });
  }
  return max;
}

/** The YAML text as a plain value, or a clear BAD_REQUEST. */
export function readSpecYaml(text: string): unknown {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_YAML_BYTES) throw unreadable(`it is ${Math.ceil(bytes / 1024)} KiB; at most ${MAX_YAML_BYTES / 1024} KiB are allowed`);
  if (!text.trim()) throw unreadable("it is empty");
  if (flowDepth(text) > MAX_FLOW_DEPTH) throw unreadable(`it is nested more than ${MAX_FLOW_DEPTH} levels deep`);
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) throw unreadable(error.message.split("\n")[0].replace(/:$/, ""));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    if (err instanceof ReferenceError || err instanceof RangeError)
      throw unreadable("it uses too many aliases (*name) or is nested too deeply");
    throw err;
  }
  if (depthOf(value) > MAX_DEPTH) throw unreadable(`it is nested more than ${MAX_DEPTH} levels deep`);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw unreadable("it is not an agent spec (name: …, instructions: …, model: …)");
  return value;
}

/** Creates the agent the file names, or saves it as a new version of the agent of that name. */
export async function importAgentYaml(deps: AgentDeps, who: AgentActor, text: string, changeNote?: string): Promise<AgentView> {
  const spec = readSpecYaml(text) as Record<string, unknown>;
  const name = typeof spec.name === "string" ? spec.name : null;
  const existing = name ? await agentRowOf(deps.db, name) : null;
  const note = changeNote || "Imported from YAML";
  // Another team's agent of that name is not there for this person: creating it says the name is taken.
  if (!name || !existing || !agentVisibleTo(existing, who.actor)) return createAgent(deps, who, spec, note, "agent.imported");
  return saveAgent(deps, who, { name, spec, changeNote: note }, "agent.imported");
}
