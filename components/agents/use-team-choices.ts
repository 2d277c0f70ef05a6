"use client";
// The teams an agent can be made visible to: the caller's own (identity.me
// lists them with their names), archived ones left out.
import { useMe } from "@/lib/access";

export interface TeamChoice {
  id: string;
  name: string;
}

export function useTeamChoices(): TeamChoice[] {
  const { me } = useMe();
  // Older servers answer identity.me with team ids only: then only "Everyone" is offered.
  const teams = (me as { teams?: Array<{ id: string; name: string; archived?: boolean }> } | undefined)?.teams;
  return Array.isArray(teams) ? teams.filter((t) => !t.archived).map(({ id, name }) => ({ id, name })) : [];
}
