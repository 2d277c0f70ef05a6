"use client";
// The choices of a "Visible to" select: everyone, or one of the caller's teams
// (the saved one named even when the caller is not in it). Agents and datasets.
import { useTeamChoices } from "./use-team-choices";

export function TeamOptions({ savedTeam }: { savedTeam?: { id: string; name: string } | null }) {
  const teams = useTeamChoices();
  const choices = [...teams];
  if (savedTeam && !choices.some((t) => t.id === savedTeam.id)) choices.push(savedTeam);
  return (
    <>
      <option value="">Everyone</option>
      {choices.map((t) => (
        <option key={t.id} value={t.id}>
          Team {t.name}
        </option>
      ))}
    </>
  );
}
