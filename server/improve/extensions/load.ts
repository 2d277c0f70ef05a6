// Loading an extension: its setup(api) runs inside the sandbox with a
// recording api, and what it registered comes back as JSON, checked against
// the manifest. The server never evaluates a line of the package.
import { z } from "zod";
import { runRuntimeTool, type SandboxHost, type SandboxLimits, type SandboxOutcome } from "../sandbox";
import { parseSkillMd, formatProblem, type ParsedSkill } from "../skills";
import { argsValidator } from "../runtime-tools/proposal";
import { bundle, mapMessage, type Bundle, type HarnessConfig } from "./bundle";
import type { ExtensionPackage } from "./package";

export interface RegisteredTool {
  name: string;
  description: string;
  argsSchema: Record<string, unknown>;
}

/** What setup(api) registered, as checked against the manifest. */
export interface Registered {
  tools: RegisteredTool[];
  skills: ParsedSkill[];
  /** The event types it listens to. */
  hooks: string[];
}

export type LoadResult = { ok: true; registered: Registered; durationMs: number } | { ok: false; problems: string[]; durationMs: number };

/** Loading runs setup: more than a tool call's second, still bounded. */
export const LOAD_LIMITS: Partial<SandboxLimits> = { timeoutMs: 2000 };

const Reported = z.object({
  name: z.string().nullable(),
  version: z.string().nullable(),
  tools: z.array(z.object({ name: z.string(), description: z.string(), argsSchema: z.unknown() })),
  skills: z.array(z.string()),
  hooks: z.array(z.string()),
});

/** Runs a bundle in a fresh sandbox; errors point into the package's files. */
export async function runBundle(b: Bundle, args: unknown, host: SandboxHost, limits?: Partial<SandboxLimits>): Promise<SandboxOutcome> {
  const outcome = await runRuntimeTool(b.source, args, host, limits);
  if (outcome.ok) return outcome;
  return { ...outcome, error: { ...outcome.error, message: mapMessage(b.map, outcome.error.message) } };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
const listed = (names: string[]) => (names.length ? names.join(", ") : "none");

/** The build step: evaluates the package and runs setup(api) in the sandbox; every mismatch with the manifest is a problem. */
export async function loadExtension(pkg: ExtensionPackage, limits: Partial<SandboxLimits> = LOAD_LIMITS): Promise<LoadResult> {
  const outcome = await runBundle(bundle(pkg, { mode: "load" }), null, {}, limits);
  const durationMs = outcome.durationMs;
  if (!outcome.ok)
    return { ok: false, problems: [`loading the extension failed (${outcome.error.code}): ${outcome.error.message}`], durationMs };
  const reported = Reported.safeParse(outcome.output);
  if (!reported.success) return { ok: false, problems: ["the sandbox answered the load with something else"], durationMs };
  const r = reported.data;
  const { manifest } = pkg;
  const problems: string[] = [];
  if (r.name !== manifest.name)
    problems.push(`index.js exports name ${JSON.stringify(r.name)}, the manifest says ${JSON.stringify(manifest.name)}`);
  if (r.version !== manifest.version)
    problems.push(`index.js exports version ${JSON.stringify(r.version)}, the manifest says ${JSON.stringify(manifest.version)}`);

  const toolNames = r.tools.map((t) => t.name);
  if (!sameSet(toolNames, manifest.tools ?? []))
    problems.push(`setup registered the tools ${listed(toolNames)}, the manifest lists ${listed(manifest.tools ?? [])}`);
  const tools: RegisteredTool[] = [];
  for (const t of r.tools) {
    if (t.description.trim().length < 10) problems.push(`tool ${t.name}: describe what it does and when to use it (10 characters or more)`);
    const schema = t.argsSchema === null ? { type: "object", properties: {} } : t.argsSchema;
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
      problems.push(`tool ${t.name}: argsSchema is a JSON schema object`);
      continue;
    }
    const validator = argsValidator(schema as Record<string, unknown>);
    if ("problems" in validator) problems.push(...validator.problems.map((p) => `tool ${t.name}: ${p}`));
    tools.push({ name: t.name, description: t.description.slice(0, 1000), argsSchema: schema as Record<string, unknown> });
  }

  const skills: ParsedSkill[] = [];
  r.skills.forEach((text, i) => {
    const parsed = parseSkillMd(text);
    if (parsed.ok) skills.push(parsed.skill);
    else problems.push(`skill ${i + 1}: ${parsed.problems.map(formatProblem).join("; ")}`);
  });
  const skillNames = skills.map((s) => s.name);
  if (skills.length === r.skills.length && !sameSet(skillNames, manifest.skills ?? []))
    problems.push(`setup registered the skills ${listed(skillNames)}, the manifest lists ${listed(manifest.skills ?? [])}`);
  if (!sameSet(r.hooks, manifest.hooks ?? []))
    problems.push(`setup listens to ${listed(r.hooks)}, the manifest lists ${listed(manifest.hooks ?? [])}`);

  return problems.length ? { ok: false, problems, durationMs } : { ok: true, registered: { tools, skills, hooks: r.hooks }, durationMs };
}

function sourceFor(pkg: ExtensionPackage, config: HarnessConfig): Bundle {
  return bundle(pkg, config);
}

/** A script for runRuntimeTool: loads the package, runs setup, and calls the one tool: a fresh sandbox per call. */
export function toolSource(pkg: ExtensionPackage, toolName: string): Bundle {
  if (!(pkg.manifest.tools ?? []).includes(toolName)) throw new Error(`the extension ${pkg.manifest.name} has no tool ${toolName}`);
  return sourceFor(pkg, { mode: "tool", tool: toolName });
}

/** A script for runRuntimeTool that calls every handler the package registered for one event type, with the event as args; its output is their answers, in order. */
export function hookSource(pkg: ExtensionPackage, eventType: string): Bundle {
  if (!(pkg.manifest.hooks ?? []).includes(eventType))
    throw new Error(`the extension ${pkg.manifest.name} does not listen to ${eventType}`);
  return sourceFor(pkg, { mode: "hook", event: eventType });
}
