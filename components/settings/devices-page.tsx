"use client";
// Settings › Devices (docs/devices.md#the-devices-page): a person's own
// computers paired as devices (T4); admins see everyone's (the router scopes
// the list). Pair one with a code shown once, see it online or offline and
// what it reported, choose the teams whose runs it takes without asking (its
// owner only), revoke it after a confirmation.
import { useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { useMe } from "@/lib/access";
import { commandsWords, systemWords } from "@/lib/devices";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { AutoConsentDialog } from "./auto-consent-dialog";
import { PairDeviceDialog } from "./pair-device-dialog";

type DeviceView = RouterOutputs["devices"]["list"][number];

/** The list is read again this often while a device is shown or a code is out; not while the tab is hidden. */
const POLL_MS = 3_000;

const STATE_CLASS: Record<DeviceView["state"], string> = {
  online: "status-succeeded",
  offline: "status-queued",
  revoked: "status-canceled",
};

const STATE_HINT: Record<DeviceView["state"], string> = {
  online: "Connected to Rein now",
  offline: "Not connected: its owner starts it with rein-device run",
  revoked: "Revoked: it can never connect again",
};

function DeviceRow({
  d,
  mine,
  teamName,
  now,
  onAutoConsent,
  onRevoke,
}: {
  d: DeviceView;
  mine: boolean;
  teamName(id: string): string;
  now: number;
  onAutoConsent(): void;
  onRevoke(): void;
}) {
  const c = d.capabilities;
  return (
    <tr data-testid="device-row" data-device-id={d.id} data-state={d.state}>
      <td style={{ fontWeight: 500 }}>
        {d.name}
        {(c?.hostname || d.team) && (
          <div className="small muted">{[c?.hostname, d.team ? `for ${d.team.name}` : null].filter(Boolean).join(" · ")}</div>
        )}
      </td>
      <td>{mine ? "you" : d.owner.name}</td>
      <td>
        <span className={`badge ${STATE_CLASS[d.state]}`} title={STATE_HINT[d.state]} data-testid="device-state">
          <span className="badge-dot" aria-hidden="true" />
          {d.state}
        </span>
      </td>
      <td>
        {d.lastSeenAt ? (
          <time dateTime={new Date(d.lastSeenAt).toISOString()} title={formatDateTime(d.lastSeenAt)} data-testid="device-last-seen">
            {formatRelative(d.lastSeenAt, now)}
          </time>
        ) : (
          <span className="muted">never</span>
        )}
      </td>
      <td data-testid="device-system">
        {c ? (
          <>
            {systemWords(c)}
            <div className="small muted">agent {c.agentVersion}</div>
          </>
        ) : (
          <span className="muted" title="What it reported could not be read">
            unknown
          </span>
        )}
      </td>
      <td data-testid="device-hardware">
        {c && c.hardware.length > 0 ? (
          <div className="row" style={{ gap: 4, flexWrap: "wrap" }}>
            {c.hardware.map((h) => (
              <span key={h} className="badge">
                {h}
              </span>
            ))}
          </div>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td data-testid="device-commands">
        {c ? (
          <span
            className={c.commands === "any" && !c.confined ? "badge status-paused" : undefined}
            title={
              c.commands === "none"
                ? "Rein cannot run anything on it"
                : c.confined
                  ? "A shell in its folder, in a bubblewrap sandbox: the system read-only, the home folder hidden"
                  : "A shell in its folder that can do whatever its owner's account can"
            }
          >
            {c.commands === "any" && !c.confined && "⚠ "}
            {commandsWords(c)}
          </span>
        ) : (
          <span className="muted">unknown</span>
        )}
      </td>
      <td data-testid="device-auto-consent">
        {d.autoConsentTeamIds.length > 0 ? (
          <div className="row" style={{ gap: 4, flexWrap: "wrap" }}>
            {d.autoConsentTeamIds.map((t) => (
              <span key={t} className="badge">
                {teamName(t)}
              </span>
            ))}
          </div>
        ) : (
          <span className="muted">asks every time</span>
        )}
        {mine && d.state !== "revoked" && (
          <div style={{ marginTop: 4 }}>
            <button type="button" className="btn btn-sm" onClick={onAutoConsent} data-testid="device-auto-consent-edit">
              Choose teams
            </button>
          </div>
        )}
      </td>
      <td style={{ textAlign: "right" }}>
        {d.state !== "revoked" && (
          <button type="button" className="btn btn-danger btn-sm" onClick={onRevoke} data-testid="device-revoke">
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

export function DevicesPage() {
  const { me, teams } = useMe();
  const utils = trpc.useUtils();
  const [pairing, setPairing] = useState(false);
  const [withRevoked, setWithRevoked] = useState(false);
  const [choosing, setChoosing] = useState<DeviceView | null>(null);
  const [revoking, setRevoking] = useState<DeviceView | null>(null);
  // Polled while a code is out or a device is listed, so a device that pairs, connects or goes away shows
  // without a reload; React Query does not poll while the tab is hidden (refetchIntervalInBackground).
  const devices = trpc.devices.list.useQuery(
    { includeRevoked: withRevoked },
    {
      refetchInterval: (q) => (pairing || (q.state.data?.length ?? 0) > 0 ? POLL_MS : false),
      refetchIntervalInBackground: false,
    },
  );
  const revoke = trpc.devices.revoke.useMutation({
    onSuccess: () => {
      setRevoking(null);
      void utils.devices.list.invalidate();
    },
  });
  const names = new Map(teams.map((t) => [t.id, t.name]));
  const teamName = (id: string) => names.get(id) ?? "a team you are not in";
  const now = Date.now();
  const pairButton = (
    <button type="button" className="btn btn-primary" onClick={() => setPairing(true)} data-testid="pair-device">
      Pair a device
    </button>
  );

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Devices</h1>
          <p>
            Your own computers, paired with Rein (T4). A device&apos;s agent connects out to Rein, lends runs one folder you chose, and asks
            you before a run uses it.
            {me?.role === "admin" && " As an admin you see everyone's devices and can revoke them."}
          </p>
        </div>
        {pairButton}
      </div>
      <div className="card">
        <div className="card-header">
          <h2>Paired devices</h2>
          <span className="spacer" />
          <label className="checkbox small">
            <input
              type="checkbox"
              checked={withRevoked}
              onChange={(e) => setWithRevoked(e.target.checked)}
              data-testid="devices-with-revoked"
            />
            Show revoked
          </label>
        </div>
        <PageShell query={devices} loading={<SkeletonRows rows={3} columns={9} />} failed="Could not load the devices">
          {(data) =>
            data.length === 0 ? (
              <EmptyState icon="⌨" title={withRevoked ? "No devices" : "No devices paired"} action={pairButton}>
                Pair a computer of yours to let Rein&apos;s runs use one folder on it, and a terminal there if you allow it, after asking
                you.
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="devices-table">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Owner</th>
                      <th>State</th>
                      <th>Last seen</th>
                      <th>System</th>
                      <th>Hardware</th>
                      <th>Commands</th>
                      <th>Runs without asking</th>
                      <th>
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.map((d) => (
                      <DeviceRow
                        key={d.id}
                        d={d}
                        mine={d.owner.id === me?.userId}
                        teamName={teamName}
                        now={now}
                        onAutoConsent={() => setChoosing(d)}
                        onRevoke={() => {
                          revoke.reset();
                          setRevoking(d);
                        }}
                      />
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </PageShell>
      </div>
      <PairDeviceDialog open={pairing} devices={devices.data} onClose={() => setPairing(false)} />
      <AutoConsentDialog device={choosing} onClose={() => setChoosing(null)} />
      <ConfirmAction
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ""}"?`}
        confirmLabel="Revoke device"
        busyLabel="Revoking…"
        cancelLabel="Keep it"
        action={revoke}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        Its connection to Rein closes at once, and its token is refused from then on: it can never connect again. To use this computer
        again, pair it anew. This cannot be undone.
      </ConfirmAction>
    </div>
  );
}
