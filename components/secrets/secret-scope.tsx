"use client";
// Who may be given a secret (docs/secrets.md#who-may-have-a-secret): the agents
// and the teams whose runs may receive it, and whether runs that play a
// scenario their launcher gave (commands that come from the caller, not the
// agent's model) may too. A secret nobody is allowed goes to no run.
import { useId, useState } from "react";
import { ErrorBlock } from "@/components/ui";
import { teamScopeIds, teamScopeNames } from "@/lib/team-scope";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type SecretView = RouterOutputs["secrets"]["list"][number];

const split = (text: string) => [
  ...new Set(
    text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

export function describeScope(secret: Pick<SecretView, "scope" | "teams">): string {
  const scope = secret.scope;
  if (scope.agents.length === 0 || scope.teams.length === 0) return "Nobody yet";
  const agents = scope.agents.includes("*") ? "any agent" : scope.agents.join(", ");
  // Teams are kept by id; their current names are shown.
  const teams = scope.teams.includes("*") ? "any team" : `team ${teamScopeNames(scope.teams, secret.teams).join(", ")}`;
  return `${agents} · ${teams}${scope.callerCommands ? " · scenarios too" : ""}`;
}

export function SecretScopeEditor({ secret, onDone }: { secret: SecretView; onDone: () => void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const agentsList = trpc.agents.list.useQuery();
  const teamsList = trpc.teams.list.useQuery();
  const [agents, setAgents] = useState(secret.scope.agents.join(", "));
  const [teams, setTeams] = useState(teamScopeNames(secret.scope.teams, secret.teams, { dropRemoved: true }).join(", "));
  const [callerCommands, setCallerCommands] = useState(secret.scope.callerCommands);
  const save = trpc.secrets.setScope.useMutation({
    onSuccess: () => {
      void utils.secrets.list.invalidate();
      onDone();
    },
  });

  return (
    <form
      className="card card-body stack"
      data-testid="secret-scope-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!save.isPending)
          save.mutate({
            name: secret.name,
            scope: { agents: split(agents), teams: teamScopeIds(split(teams), teamsList.data ?? []), callerCommands },
          });
      }}
    >
      <h2 style={{ margin: 0 }}>
        Who may be given <code>{secret.name}</code>
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        A run gets this secret only when its agent and its team are both allowed here. Use <code>*</code> for any. Leave a field empty and
        no run gets it.
      </p>
      <ErrorBlock error={save.error} testId="secret-scope-error" />
      <div className="form-inline" style={{ alignItems: "flex-start" }}>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`${id}-agents`}>Agents</label>
          <input
            id={`${id}-agents`}
            className="input mono"
            list={`${id}-agent-names`}
            value={agents}
            onChange={(e) => setAgents(e.target.value)}
            placeholder="e.g. demo-deploy, release-bot"
            data-testid="secret-scope-agents"
          />
          <datalist id={`${id}-agent-names`}>
            {(agentsList.data ?? []).map((a) => (
              <option key={a.name} value={a.name} />
            ))}
          </datalist>
          <span className="hint">Agent names, separated by commas.</span>
        </div>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`${id}-teams`}>Teams</label>
          <input
            id={`${id}-teams`}
            className="input mono"
            list={`${id}-team-names`}
            value={teams}
            onChange={(e) => setTeams(e.target.value)}
            placeholder="e.g. default"
            data-testid="secret-scope-teams"
          />
          <datalist id={`${id}-team-names`}>
            {(teamsList.data ?? []).map((t) => (
              <option key={t.id} value={t.name} />
            ))}
          </datalist>
          <span className="hint">Team names, separated by commas. A renamed team keeps its access.</span>
        </div>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={callerCommands}
          onChange={(e) => setCallerCommands(e.target.checked)}
          data-testid="secret-scope-caller"
        />{" "}
        Also runs that play a scenario their launcher gave. Their commands are the launcher&apos;s, not the agent&apos;s, so a launcher
        could print the value in a form no redactor knows.
      </label>
      <div className="form-inline">
        <button type="submit" className="btn btn-primary" disabled={save.isPending} data-testid="secret-scope-save">
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          Save who may have it
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
