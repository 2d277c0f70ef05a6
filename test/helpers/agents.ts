// People in two teams for the agents' tests: an operator and a viewer of
// team alpha, an operator of team beta, and the test kernel's admin.
import { agentDepsOf, type AgentActor } from "@/server/agents";
import { createUser, loadActor, type Actor, type Role } from "@/server/identity";
import type { TestKernel } from "./kernel";

export interface AgentPeople {
  alphaId: string;
  betaId: string;
  alphaOperator: Actor;
  alphaViewer: Actor;
  betaOperator: Actor;
  admin: Actor;
}

let seq = 0;

async function person(tk: TestKernel, role: Role, team: string): Promise<Actor> {
  const id = await createUser(tk.t.db, { email: `${team}-${role}-${++seq}@test.local`, password: "test-password-1", role, teams: [team] });
  return (await loadActor(tk.t.db, id))!;
}

export async function agentPeople(tk: TestKernel): Promise<AgentPeople> {
  const alphaOperator = await person(tk, "operator", "alpha");
  const alphaViewer = await person(tk, "viewer", "alpha");
  const betaOperator = await person(tk, "operator", "beta");
  return {
    alphaId: alphaOperator.teamIds[0],
    betaId: betaOperator.teamIds[0],
    alphaOperator,
    alphaViewer,
    betaOperator,
    admin: tk.actors.admin,
  };
}

/** The service's dependencies and an actor as the UI would pass them. */
export const agentsOf = (tk: TestKernel) => agentDepsOf(tk.kernel);
export const as = (actor: Actor, channel = "admin"): AgentActor => ({ actor, channel });

/** A small valid spec; the test changes what it is about. */
export function specFor(teamId: string | null, overrides: Record<string, unknown> = {}) {
  return {
    name: "helper-bot",
    instructions: "Help with the task.",
    model: "scripted/demo-coder",
    tools: ["read_file"],
    teamId,
    ...overrides,
  };
}
