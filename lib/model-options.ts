// The model picker of the New run dialog (docs/models.md#routing): the agent's own
// model by default; "auto" (the routing rules) once models are configured;
// every configured model; the scripted demos, always labelled as such.
import type { ModelOption } from "@/server/models";

export const AGENT_MODEL = "";
export const AUTO = "auto";

export interface ModelChoice {
  value: string;
  label: string;
  scripted: boolean;
}

export interface ModelChoices {
  /** The agent's own model, then "auto" when there are rules to follow. */
  top: ModelChoice[];
  configured: ModelChoice[];
  scripted: ModelChoice[];
}

export function modelChoices(
  options: { models: ModelOption[]; routingAvailable: boolean } | undefined,
  agentModel: string | undefined,
): ModelChoices {
  const agentScripted = !!agentModel?.startsWith("scripted");
  const own: ModelChoice = {
    value: AGENT_MODEL,
    label: agentModel ? `The agent's model: ${agentModel}${agentScripted ? " (scripted demo, no model called)" : ""}` : "The agent's model",
    scripted: agentScripted,
  };
  const top = [own, ...(options?.routingAvailable ? [{ value: AUTO, label: "auto (routing rules)", scripted: false }] : [])];
  const all = options?.models ?? [];
  return {
    top,
    configured: all.filter((m) => !m.scripted).map((m) => ({ value: m.ref, label: m.label, scripted: false })),
    scripted: all.filter((m) => m.scripted).map((m) => ({ value: m.ref, label: m.label, scripted: true })),
  };
}

/** The model runs.create gets: undefined keeps the agent's own. */
export function chosenModel(value: string): string | undefined {
  return value === AGENT_MODEL ? undefined : value;
}

/** The complexity field: blank is "not set"; otherwise a number from 0 to 1. */
export function parseComplexity(text: string): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const t = text.trim();
  if (!t) return { ok: true, value: undefined };
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) return { ok: false, error: "must be a number from 0 to 1, e.g. 0.7" };
  const n = Number(t);
  if (n > 1) return { ok: false, error: "must be from 0 to 1" };
  return { ok: true, value: n };
}
