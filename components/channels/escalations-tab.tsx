"use client";
// Settings › Channels › Escalations: who hears of a request when nobody
// decided it in time. Level 2 goes to a team's level-2 approvers (everyone
// who may decide it when none are chosen); when level 2 runs out too, the
// on-call admins hear of it (every admin when none are chosen).
import { useState } from "react";
import { ErrorBlock, ErrorState, SkeletonRows } from "@/components/ui";
import { roleAtLeast } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { pluralize } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import styles from "./channels.module.css";
import { PeoplePicker, type PersonOption } from "./people-picker";

type Routing = RouterOutputs["channels"]["routing"];
type User = RouterOutputs["users"]["list"][number];
type Team = RouterOutputs["teams"]["list"][number];

export function EscalationsTab() {
  const routing = trpc.channels.routing.useQuery();
  const users = trpc.users.list.useQuery();
  const teams = trpc.teams.list.useQuery();
  const failed = routing.error ?? users.error ?? teams.error;
  return (
    <div className="card" data-testid="escalations-card">
      <div className="card-header">
        <h2>Who hears of escalations</h2>
      </div>
      {routing.isLoading || users.isLoading || teams.isLoading ? (
        <SkeletonRows rows={4} columns={3} />
      ) : failed || !routing.data || !users.data || !teams.data ? (
        <ErrorState
          title="Could not load who hears of escalations"
          message={failed ? errorMessage(failed) : "No data"}
          onRetry={() => {
            void routing.refetch();
            void users.refetch();
            void teams.refetch();
          }}
        />
      ) : (
        <RoutingForm routing={routing.data} users={users.data} teams={teams.data.filter((t) => !t.archivedAt)} />
      )}
    </div>
  );
}

const option = (u: User): PersonOption => ({ id: u.id, name: u.name, email: u.email, role: u.role });

/** Who may decide a team's requests: admins, and approvers of the team or of every team. */
function mayDecideIn(u: User, teamId: string) {
  return roleAtLeast(u.role, "approver") || u.teams.some((t) => t.id === teamId && roleAtLeast(t.effectiveRole, "approver"));
}

function RoutingForm({ routing, users, teams }: { routing: Routing; users: User[]; teams: Team[] }) {
  const utils = trpc.useUtils();
  const [onCall, setOnCall] = useState<string[]>(routing.onCall);
  const [level2, setLevel2] = useState<Record<string, string[]>>(routing.level2);
  const save = trpc.channels.setRouting.useMutation({ onSuccess: (r) => utils.channels.routing.setData(undefined, r) });
  const active = users.filter((u) => u.status === "active");
  const dirty =
    JSON.stringify({ onCall, level2: clean(level2) }) !== JSON.stringify({ onCall: routing.onCall, level2: clean(routing.level2) });

  return (
    <div className="card-body stack" style={{ gap: 16 }}>
      <p className="muted" style={{ margin: 0 }}>
        When nobody decides a request in time it escalates: first to the team&apos;s level-2 approvers, then to the on-call admins. When
        Slack or e-mail is set up, their notices go to the people chosen here; the Inbox shows every request to everyone who may decide it.
      </p>
      <section className="stack" style={{ gap: 6 }}>
        <h3 style={{ margin: 0, fontSize: 14 }}>On-call admins</h3>
        <p className="small muted" style={{ margin: 0 }}>
          Hear of a request when its level-2 approvers did not decide it in time either.
        </p>
        <PeoplePicker
          label="on-call admins"
          people={active.filter((u) => u.role === "admin").map(option)}
          chosen={onCall}
          onChange={setOnCall}
          emptyWords="Nobody chosen: every admin hears of it."
          testId="routing-oncall"
        />
      </section>
      <section className="stack" style={{ gap: 0 }}>
        <h3 style={{ margin: "0 0 6px", fontSize: 14 }}>Level-2 approvers by team</h3>
        {teams.length === 0 && <p className="muted small">There are no teams yet.</p>}
        {teams.map((t) => (
          <div key={t.id} className={styles.teamRow} data-testid="routing-team" data-team={t.name}>
            <div>
              <strong>{t.name}</strong>
              <div className="small muted">
                {pluralize(active.filter((u) => mayDecideIn(u, t.id)).length, "person", "people")} may decide its requests
              </div>
            </div>
            <PeoplePicker
              label={`${t.name}'s level-2 approvers`}
              people={active.filter((u) => mayDecideIn(u, t.id)).map(option)}
              chosen={level2[t.id] ?? []}
              onChange={(ids) => setLevel2((l) => ({ ...l, [t.id]: ids }))}
              emptyWords="Nobody chosen: everyone who may decide it hears of it."
              testId={`routing-level2-${t.id}`}
            />
          </div>
        ))}
      </section>
      {save.isError && <ErrorBlock error={save.error} />}
      <div className="row" style={{ gap: 10 }}>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!dirty || save.isPending}
          onClick={() => save.mutate({ onCall, level2: clean(level2) })}
          data-testid="routing-save"
        >
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          {save.isPending ? "Saving…" : "Save"}
        </button>
        {save.isSuccess && !dirty && (
          <span className="saved-note" role="status" data-testid="routing-saved">
            Saved
          </span>
        )}
      </div>
    </div>
  );
}

/** Teams with nobody chosen are left out (the default applies to them). */
function clean(level2: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(level2)
      .filter(([, ids]) => ids.length > 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
