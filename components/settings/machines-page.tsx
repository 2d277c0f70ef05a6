"use client";
// Settings › Machines (docs/desktops-and-tiers.md#t3-remote-machines): admins
// register remote machines for T3. Adding one shows Rein's public key and a
// host install script; "Connect and show host key" shows the fingerprint the
// machine presents, for the admin to compare and confirm; Test says in words
// what Rein found there. No private key ever reaches this page.
import { useId, useState, type FormEvent } from "react";
import { ConfirmAction, Dialog, EmptyState, ErrorBlock, PageShell, SkeletonRows } from "@/components/ui";
import { formatRelative } from "@/lib/format";
import { MACHINE_STATE_WORDS, addressOf, hostInstallScript } from "@/lib/machines";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { CopyField } from "./create-token";

type MachineView = RouterOutputs["machines"]["list"][number];

const STATE_CLASS: Record<MachineView["state"], string> = {
  not_confirmed: "status-paused",
  ready: "status-succeeded",
  unreachable: "status-failed",
};

const CONFINEMENT_WORDS: Record<MachineView["confinement"], string> = {
  bubblewrap: "bubblewrap",
  user: "its user only",
  unknown: "not tested",
};

function RegisterForm({ onRegistered, onClose }: { onRegistered(m: MachineView): void; onClose(): void }) {
  const id = useId();
  const teams = trpc.teams.list.useQuery();
  const [name, setName] = useState("");
  const [host, setHost] = useState("");
  const [port, setPort] = useState("22");
  const [user, setUser] = useState("rein");
  const [labels, setLabels] = useState("");
  const [concurrency, setConcurrency] = useState("1");
  const [teamId, setTeamId] = useState("");
  const register = trpc.machines.register.useMutation({ onSuccess: onRegistered });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (register.isPending) return;
    register.mutate({
      name: name.trim(),
      host: host.trim(),
      port: Number(port),
      user: user.trim(),
      labels: labels
        .split(",")
        .map((l) => l.trim())
        .filter(Boolean),
      concurrency: Number(concurrency),
      teamId: teamId || null,
    });
  }

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="add-machine-form">
      <div className="dialog-header">
        <div>
          <h2 id="add-machine-title">Add a machine</h2>
          <p>Rein makes a key pair for it; nothing is contacted until you ask.</p>
        </div>
      </div>
      <div className="dialog-body stack">
        <div className="form-inline">
          <div className="field" style={{ flex: 1, minWidth: 160 }}>
            <label htmlFor={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              className="input"
              data-autofocus
              autoComplete="off"
              maxLength={64}
              placeholder="e.g. build-box"
              value={name}
              onChange={(e) => setName(e.target.value)}
              data-testid="machine-name"
            />
          </div>
          <div className="field" style={{ width: 120 }}>
            <label htmlFor={`${id}-concurrency`}>Runs at a time</label>
            <input
              id={`${id}-concurrency`}
              className="input"
              type="number"
              min={1}
              max={64}
              value={concurrency}
              onChange={(e) => setConcurrency(e.target.value)}
            />
          </div>
        </div>
        <div className="form-inline">
          <div className="field" style={{ flex: 1, minWidth: 180 }}>
            <label htmlFor={`${id}-host`}>Address</label>
            <input
              id={`${id}-host`}
              className="input"
              autoComplete="off"
              maxLength={253}
              placeholder="10.0.0.5 or build.example.com"
              value={host}
              onChange={(e) => setHost(e.target.value)}
              data-testid="machine-host"
            />
          </div>
          <div className="field" style={{ width: 90 }}>
            <label htmlFor={`${id}-port`}>Port</label>
            <input
              id={`${id}-port`}
              className="input"
              type="number"
              min={1}
              max={65535}
              value={port}
              onChange={(e) => setPort(e.target.value)}
            />
          </div>
          <div className="field" style={{ width: 130 }}>
            <label htmlFor={`${id}-user`}>User</label>
            <input
              id={`${id}-user`}
              className="input"
              autoComplete="off"
              maxLength={32}
              value={user}
              onChange={(e) => setUser(e.target.value)}
              data-testid="machine-user"
            />
          </div>
        </div>
        <div className="form-inline">
          <div className="field" style={{ flex: 1, minWidth: 180 }}>
            <label htmlFor={`${id}-labels`}>Labels</label>
            <input
              id={`${id}-labels`}
              className="input"
              autoComplete="off"
              placeholder="gpu, arm64"
              value={labels}
              onChange={(e) => setLabels(e.target.value)}
            />
            <span className="hint">Comma-separated; lower-case letters, digits, . _ -</span>
          </div>
          <div className="field" style={{ width: 180 }}>
            <label htmlFor={`${id}-team`}>Team</label>
            <select id={`${id}-team`} className="input" value={teamId} onChange={(e) => setTeamId(e.target.value)}>
              <option value="">Every team</option>
              {(teams.data ?? [])
                .filter((t) => !t.archivedAt)
                .map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
            </select>
          </div>
        </div>
        <ErrorBlock error={register.error ?? teams.error} />
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to add · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !host.trim() || !user.trim() || register.isPending}
          data-testid="register-machine"
        >
          {register.isPending && <span className="spinner" aria-hidden="true" />}
          Add machine
        </button>
      </div>
    </form>
  );
}

/** The public key to install, then the first contact and the confirmation of the host key. */
function ConfirmKeyStep({ machine, onClose }: { machine: MachineView; onClose(): void }) {
  const utils = trpc.useUtils();
  const contact = trpc.machines.contact.useMutation();
  const confirm = trpc.machines.confirmKey.useMutation({
    onSuccess: () => void utils.machines.list.invalidate(),
  });
  const script = hostInstallScript(machine);
  return (
    <div className="dialog-form" data-testid="confirm-key-step">
      <div className="dialog-header">
        <div>
          <h2 id="add-machine-title">Connect {machine.name}</h2>
          <p>
            {machine.user}@{addressOf(machine)}
          </p>
        </div>
      </div>
      <div className="dialog-body stack">
        <div className="stack" style={{ gap: 6 }}>
          <strong>1. Install Rein&apos;s public key for {machine.user} on the machine</strong>
          <CopyField value={machine.publicKey} label="Rein's public key for this machine" testId="machine-public-key" />
          <span className="small muted">For example, run this on the machine (it also installs bubblewrap, which confines commands):</span>
          <CopyField value={script} label="Host install script" testId="machine-install-script" />
        </div>
        <div className="stack" style={{ gap: 6 }}>
          <strong>2. Check the host key the machine presents</strong>
          <div>
            <button
              type="button"
              className="btn"
              onClick={() => contact.mutate({ id: machine.id })}
              disabled={contact.isPending}
              data-testid="contact-machine"
            >
              {contact.isPending && <span className="spinner" aria-hidden="true" />}
              Connect and show host key
            </button>
          </div>
          <ErrorBlock error={contact.error} />
          {contact.data && (
            <div className="stack" style={{ gap: 6 }} aria-live="polite">
              <code data-testid="presented-fingerprint">{contact.data.fingerprint}</code>
              <span className="small muted">{contact.data.words}</span>
              <span className="small muted">
                On the machine, <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code> prints the same when it is the right one.
              </span>
            </div>
          )}
        </div>
        <ErrorBlock error={confirm.error} />
        {confirm.data && (
          <p className="small" role="status" data-testid="key-confirmed">
            Pinned {confirm.data.hostKeyFingerprint}. Press Test on the list to see how commands will run there.
          </p>
        )}
      </div>
      <div className="dialog-footer">
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          {confirm.data ? "Done" : "Later"}
        </button>
        {!confirm.data && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={!contact.data || contact.data.pinned || confirm.isPending}
            onClick={() => contact.data && confirm.mutate({ id: machine.id, fingerprint: contact.data.fingerprint })}
            data-testid="confirm-host-key"
          >
            {confirm.isPending && <span className="spinner" aria-hidden="true" />}
            Confirm this host key
          </button>
        )}
      </div>
    </div>
  );
}

function AddMachineDialog({ open, machine, onClose }: { open: boolean; machine: MachineView | null; onClose(): void }) {
  const utils = trpc.useUtils();
  const [registered, setRegistered] = useState<MachineView | null>(null);
  const shown = machine ?? registered;
  const close = () => {
    setRegistered(null);
    onClose();
  };
  return (
    <Dialog open={open} onClose={close} labelledBy="add-machine-title" testId="add-machine-dialog">
      {shown ? (
        <ConfirmKeyStep machine={shown} onClose={close} />
      ) : (
        <RegisterForm
          onClose={close}
          onRegistered={(m) => {
            setRegistered(m);
            void utils.machines.list.invalidate();
          }}
        />
      )}
    </Dialog>
  );
}

function MachineRow({ m, onConfirm, onRemove }: { m: MachineView; onConfirm(): void; onRemove(): void }) {
  const utils = trpc.useUtils();
  const test = trpc.machines.test.useMutation({ onSettled: () => void utils.machines.list.invalidate() });
  return (
    <tr data-testid="machine-row" data-machine-id={m.id}>
      <td style={{ fontWeight: 500 }}>
        {m.name}
        {m.labels.length > 0 && (
          <div className="row" style={{ gap: 4, flexWrap: "wrap" }}>
            {m.labels.map((l) => (
              <span key={l} className="badge">
                {l}
              </span>
            ))}
          </div>
        )}
      </td>
      <td>
        <code>
          {m.user}@{addressOf(m)}
        </code>
      </td>
      <td>
        <span className={`badge ${STATE_CLASS[m.state]}`} data-testid="machine-state">
          {MACHINE_STATE_WORDS[m.state]}
        </span>
        {m.lastError && <div className="small muted">{m.lastError}</div>}
        {m.lastSeenAt && <div className="small muted">seen {formatRelative(m.lastSeenAt, Date.now())}</div>}
      </td>
      <td>{m.team?.name ?? <span className="muted">every team</span>}</td>
      <td>
        {CONFINEMENT_WORDS[m.confinement]}
        {m.facts && (
          <div className="small muted">
            {[m.facts.os, m.facts.arch, m.facts.cpus ? `${m.facts.cpus} CPUs` : null].filter(Boolean).join(" · ")}
          </div>
        )}
        {(test.data || test.error) && (
          <div className="small" role="status" data-testid="machine-test-words">
            {test.data ? test.data.words : <ErrorBlock error={test.error} />}
          </div>
        )}
      </td>
      <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
        {m.state === "not_confirmed" ? (
          <button type="button" className="btn btn-sm" onClick={onConfirm} data-testid="machine-confirm">
            Confirm host key
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => test.mutate({ id: m.id })}
            disabled={test.isPending}
            data-testid="machine-test"
          >
            {test.isPending && <span className="spinner" aria-hidden="true" />}
            Test
          </button>
        )}{" "}
        <button type="button" className="btn btn-danger btn-sm" onClick={onRemove} data-testid="machine-remove">
          Remove
        </button>
      </td>
    </tr>
  );
}

export function MachinesPage() {
  const machines = trpc.machines.list.useQuery();
  const utils = trpc.useUtils();
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState<MachineView | null>(null);
  const [removing, setRemoving] = useState<MachineView | null>(null);
  const archive = trpc.machines.archive.useMutation({
    onSuccess: () => {
      setRemoving(null);
      void utils.machines.list.invalidate();
    },
  });

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Machines</h1>
          <p>
            Remote machines Rein reaches over SSH (T3), with a key pair of their own and a pinned host key. A run moves to one when T3 is on
            (Settings › Tiers) and its agent asks for it with upgrade_tier.
          </p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} data-testid="add-machine">
          Add machine
        </button>
      </div>
      <div className="card">
        <PageShell query={machines} loading={<SkeletonRows rows={3} columns={6} />} failed="Could not load the machines">
          {(data) =>
            data.length === 0 ? (
              <EmptyState icon="⌁" title="No machines yet">
                Add one: Rein shows the public key to install on it, then its host key for you to confirm.
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="machines-table">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Address</th>
                      <th>State</th>
                      <th>Team</th>
                      <th>Confinement</th>
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {data.map((m) => (
                      <MachineRow
                        key={m.id}
                        m={m}
                        onConfirm={() => setConfirming(m)}
                        onRemove={() => {
                          archive.reset();
                          setRemoving(m);
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
      <AddMachineDialog
        open={adding || confirming !== null}
        machine={confirming}
        onClose={() => {
          setAdding(false);
          setConfirming(null);
        }}
      />
      <ConfirmAction
        open={removing !== null}
        title={`Remove "${removing?.name ?? ""}"?`}
        confirmLabel="Remove machine"
        busyLabel="Removing…"
        cancelLabel="Keep it"
        action={archive}
        onConfirm={() => removing && archive.mutate({ id: removing.id })}
        onClose={() => setRemoving(null)}
      >
        Rein stops connecting to it. Remove Rein&apos;s key from ~{removing?.user ?? "user"}/.ssh/authorized_keys on the machine as well.
      </ConfirmAction>
    </div>
  );
}
