"use client";
// Disable / Enable a skill (approver in its team, or overall for one made for
// everyone). A button for a role I lack stays visible, disabled, with the
// reason; the server checks again.
import { useState } from "react";
import type { Role } from "@/server/identity";
import { aRole, roleAtLeast, roleInTeam, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { SkillDetail } from "./format";

function useRoleFor(teams: string[]): Role | null {
  const { me } = useMe();
  if (!me) return null;
  if (!teams.length) return me.role;
  const roles = teams.map((t) => roleInTeam(me, t)).filter((r): r is Role => !!r);
  return roles.reduce<Role | null>((best, r) => (!best || roleAtLeast(r, best) ? r : best), null);
}

export function SkillActions({ skill }: { skill: SkillDetail }) {
  const utils = trpc.useUtils();
  const c = skill.current;
  const role = useRoleFor(c.scope.teams);
  const [error, setError] = useState<string | null>(null);
  const done = {
    onMutate: () => setError(null),
    onSuccess: (s: SkillDetail) => utils.skills.get.setData({ name: s.name }, s),
    onError: (err: unknown) => setError(errorMessage(err)),
    onSettled: () => void utils.skills.list.invalidate(),
  };
  const disable = trpc.skills.disable.useMutation(done);
  const enable = trpc.skills.enable.useMutation(done);
  const busy = disable.isPending || enable.isPending;
  const why = roleAtLeast(role, "approver")
    ? null
    : `Switching a skill ${c.state === "active" ? "off" : "on"} needs the approver role; you are ${aRole(role)}${c.scope.teams.length ? " in its team" : ""}`;
  return (
    <div className="stack" style={{ alignItems: "flex-end", gap: 6 }}>
      {c.state === "active" && (
        <button
          type="button"
          className="btn"
          disabled={!!why || busy}
          title={why ?? "Switch it off: runs stop seeing it at their next turn"}
          onClick={() => disable.mutate({ name: skill.name })}
          data-testid="skill-disable"
        >
          Disable
        </button>
      )}
      {c.state === "disabled" && (
        <button
          type="button"
          className="btn btn-primary"
          disabled={!!why || busy}
          title={why ?? "Switch it back on"}
          onClick={() => enable.mutate({ name: skill.name })}
          data-testid="skill-enable"
        >
          Enable
        </button>
      )}
      {error && (
        <div className="error-box" role="alert" data-testid="skill-action-error">
          {error}
        </div>
      )}
    </div>
  );
}
