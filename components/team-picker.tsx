"use client";
// The team something launched goes to (its budget, policies, models and who
// sees it): the teams where I may start runs, the one I used last first. Only
// shown when there is a choice to make, or to say why there is none.
import { useState, type ReactNode } from "react";
import { launchTeams, useMe } from "@/lib/access";

/** The teams offered and the one picked (the first until I pick another). */
export function useLaunchTeam() {
  const { me } = useMe();
  const teams = launchTeams(me);
  const [choice, setChoice] = useState("");
  const teamId = teams.some((t) => t.id === choice) ? choice : teams[0]?.id;
  return { teams, teamId, setTeamId: setChoice, memberOfMore: (me?.teams.length ?? 0) > 1 };
}

export function TeamPicker({
  inputId,
  launch,
  hint,
  onlyTeam,
}: {
  inputId: string;
  launch: ReturnType<typeof useLaunchTeam>;
  hint: string;
  /** The line shown when only one of my teams takes runs from me. */
  onlyTeam(name: ReactNode): ReactNode;
}) {
  const { teams, teamId, setTeamId, memberOfMore } = launch;
  if (teams.length > 1) {
    return (
      <div className="field">
        <label htmlFor={inputId}>Team</label>
        <select id={inputId} className="select" value={teamId} onChange={(e) => setTeamId(e.target.value)} data-testid="team-select">
          {teams.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} (you are {t.role})
            </option>
          ))}
        </select>
        <span className="hint">{hint}</span>
      </div>
    );
  }
  if (teams.length === 1 && memberOfMore) {
    return (
      <p className="hint" data-testid="team-only">
        {onlyTeam(<strong>{teams[0].name}</strong>)}
      </p>
    );
  }
  return null;
}
