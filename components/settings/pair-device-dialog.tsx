"use client";
// Pair a device (docs/devices.md#the-devices-page): a pairing code shown once,
// large, with the time it has left and the exact command to type on the
// device. The page polls the list while this is open, so the device shows up
// here as soon as it trades the code for its token.
import { useEffect, useId, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock } from "@/components/ui";
import { useMe } from "@/lib/access";
import { DEFAULT_DEVICE_FOLDER, formatCountdown, pairCommand, runCommand } from "@/lib/devices";
import { formatClock } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { CopyButton } from "./create-token";
import styles from "./devices.module.css";

type DeviceView = RouterOutputs["devices"]["list"][number];
type Pairing = RouterOutputs["devices"]["createPairing"];

/** Milliseconds until `at`, again every second while the component is shown. */
function useTimeLeft(at: Date | string | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!at) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [at]);
  return at ? new Date(at).getTime() - now : 0;
}

/** A command to type, whole (it wraps rather than scrolls), with its copy button. */
function CommandBlock({ command, label, testId }: { command: string; label: string; testId: string }) {
  return (
    <div className="row" style={{ gap: 8, alignItems: "flex-start" }}>
      <pre className="code-block" style={{ flex: 1, margin: 0 }} data-testid={testId}>
        {command}
      </pre>
      <CopyButton value={command} label={label} testId={`copy-${testId}`} />
    </div>
  );
}

function CodeForm({ onMade, onClose }: { onMade(p: Pairing): void; onClose(): void }) {
  const id = useId();
  const { teams } = useMe();
  const [teamId, setTeamId] = useState("");
  const create = trpc.devices.createPairing.useMutation({ onSuccess: onMade });
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!create.isPending) create.mutate(teamId ? { teamId } : {});
  }
  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="pair-device-form">
      <div className="dialog-header">
        <div>
          <h2 id="pair-device-title">Pair a device</h2>
          <p>Rein makes a code for one device, good for 10 minutes. You type it on the device with the folder it lends to runs.</p>
        </div>
      </div>
      <div className="dialog-body stack">
        <div className="field">
          <label htmlFor={`${id}-team`}>Paired for</label>
          <select id={`${id}-team`} className="input" value={teamId} onChange={(e) => setTeamId(e.target.value)} data-autofocus>
            <option value="">No team in particular</option>
            {teams
              .filter((t) => !t.archived)
              .map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
          </select>
          <span className="hint">The device is yours either way; only you choose which teams&apos; runs it takes without asking.</span>
        </div>
        <ErrorBlock error={create.error} />
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to make it · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={create.isPending} data-testid="make-pairing-code">
          {create.isPending && <span className="spinner" aria-hidden="true" />}
          Make a pairing code
        </button>
      </div>
    </form>
  );
}

function CodeShown({
  pairing,
  paired,
  onAgain,
  onClose,
}: {
  pairing: Pairing;
  paired: DeviceView | null;
  onAgain(): void;
  onClose(): void;
}) {
  const id = useId();
  const [folder, setFolder] = useState(DEFAULT_DEVICE_FOLDER);
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  const left = useTimeLeft(paired ? null : pairing.expiresAt);
  const expired = !paired && left <= 0;
  const command = pairCommand(origin, pairing.code, folder);
  return (
    <div className="dialog-form" data-testid="pairing-code-step">
      <div className="dialog-header">
        <div>
          <h2 id="pair-device-title">Pair a device</h2>
          <p>This code is shown only this once. It works for one device.</p>
        </div>
      </div>
      <div className="dialog-body stack">
        <div className={styles.code}>
          <output className={styles.codeValue} aria-label="Pairing code" data-testid="pairing-code">
            {pairing.code}
          </output>
          <CopyButton value={pairing.code} label="Copy the pairing code" testId="copy-pairing-code" />
          <span className={`small ${expired ? "" : "muted"}`} data-testid="pairing-expiry">
            {paired ? "used" : expired ? "expired" : `expires in ${formatCountdown(left)}`}
            {!paired && !expired && <span className="muted"> (at {formatClock(pairing.expiresAt)})</span>}
          </span>
        </div>
        <div className="field">
          <label htmlFor={`${id}-folder`}>Folder on the device that runs may use</label>
          <input
            id={`${id}-folder`}
            className="input mono"
            autoComplete="off"
            spellCheck={false}
            value={folder}
            onChange={(e) => setFolder(e.target.value)}
            data-testid="pairing-folder"
          />
        </div>
        <div className="stack" style={{ gap: 6 }}>
          <strong>On the device (Node 22 or later), type:</strong>
          <CommandBlock command={command} label="Copy the command that pairs the device" testId="pairing-command" />
          <span className="small muted">
            Add <code className={styles.flag}>--commands any</code> to allow a terminal in that folder,{" "}
            <code className={styles.flag}>--name laptop</code> to name it, <code className={styles.flag}>--expose usb,gpu</code> to tell
            Rein about hardware. Then keep it connected with:
          </span>
          <CommandBlock command={runCommand(origin)} label="Copy the command that runs the device agent" testId="pairing-run-command" />
        </div>
        <div role="status" aria-live="polite" data-testid="pairing-status">
          {paired ? (
            <div className="alert alert-success">
              <span>
                Paired: <strong>{paired.name}</strong>. It shows as online while <code>rein-device run</code> runs on it.
              </span>
            </div>
          ) : expired ? (
            <div className="alert alert-warn" style={{ alignItems: "center" }}>
              <span>This code expired before a device used it.</span>
              <button type="button" className="btn btn-sm" onClick={onAgain} data-testid="pairing-again">
                Make a new code
              </button>
            </div>
          ) : (
            <span className="small muted">
              <span className="spinner" aria-hidden="true" /> Waiting for the device to pair…
            </span>
          )}
        </div>
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Esc</kbd> to close; the code stays good until it expires
        </span>
        <span className="spacer" />
        <button type="button" className={paired ? "btn btn-primary" : "btn"} onClick={onClose} data-testid="pairing-done">
          {paired ? "Done" : "Close"}
        </button>
      </div>
    </div>
  );
}

/**
 * `devices` is the page's list, polled while this is open: a device in it that
 * was not there when the code was made is the one that used it.
 */
export function PairDeviceDialog({ open, devices, onClose }: { open: boolean; devices: DeviceView[] | undefined; onClose(): void }) {
  const { me } = useMe();
  const [pairing, setPairing] = useState<{ made: Pairing; before: Set<string> } | null>(null);
  const close = () => {
    setPairing(null);
    onClose();
  };
  const paired = pairing ? (devices?.find((d) => !pairing.before.has(d.id) && d.owner.id === me?.userId) ?? null) : null;
  return (
    <Dialog open={open} onClose={close} labelledBy="pair-device-title" testId="pair-device-dialog">
      {pairing ? (
        <CodeShown pairing={pairing.made} paired={paired} onAgain={() => setPairing(null)} onClose={close} />
      ) : (
        <CodeForm onClose={close} onMade={(made) => setPairing({ made, before: new Set((devices ?? []).map((d) => d.id)) })} />
      )}
    </Dialog>
  );
}
