"use client";
// A device's auto-consent teams (docs/devices.md#consent): runs of these teams
// use the device without its owner being asked first. Only the owner sees
// this; the server refuses anyone else.
import { useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock } from "@/components/ui";
import { useMe } from "@/lib/access";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type DeviceView = RouterOutputs["devices"]["list"][number];

function AutoConsentForm({ device, onClose }: { device: DeviceView; onClose(): void }) {
  const utils = trpc.useUtils();
  const { teams } = useMe();
  const [chosen, setChosen] = useState<string[]>(device.autoConsentTeamIds);
  const save = trpc.devices.setAutoConsent.useMutation({
    onSuccess: () => {
      void utils.devices.list.invalidate();
      onClose();
    },
  });
  const shown = teams.filter((t) => !t.archived || chosen.includes(t.id));
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!save.isPending) save.mutate({ id: device.id, teamIds: chosen });
  }
  const reach =
    device.capabilities?.commands === "any" ? "read and write its folder and open a terminal there" : "read and write its folder";
  return (
    <form className="dialog-form" onSubmit={submit} data-testid="auto-consent-form">
      <div className="dialog-header">
        <div>
          <h2 id="auto-consent-title">Runs {device.name} takes without asking</h2>
          <p>
            A run of a team checked here may {reach} without a question on the device. Any other run waits for you to answer{" "}
            <code>Allow it?</code> there.
          </p>
        </div>
      </div>
      <div className="dialog-body stack" style={{ gap: 8 }}>
        {shown.length === 0 ? (
          <p className="muted">You are in no team yet.</p>
        ) : (
          <fieldset className="stack" style={{ gap: 8, border: 0, padding: 0, margin: 0 }}>
            <legend className="small muted" style={{ marginBottom: 6 }}>
              Teams
            </legend>
            {shown.map((t, i) => (
              <label key={t.id} className="checkbox" data-testid="auto-consent-team">
                <input
                  type="checkbox"
                  data-autofocus={i === 0 ? true : undefined}
                  checked={chosen.includes(t.id)}
                  onChange={(e) => setChosen((c) => (e.target.checked ? [...c, t.id] : c.filter((x) => x !== t.id)))}
                />
                {t.name}
                {t.archived && <span className="muted small">archived</span>}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorBlock error={save.error} />
      </div>
      <DialogFooter
        onClose={onClose}
        busy={save.isPending}
        label="Save"
        busyLabel="Saving…"
        testId="save-auto-consent"
        hint={
          <>
            <kbd>Esc</kbd> to close
          </>
        }
      />
    </form>
  );
}

export function AutoConsentDialog({ device, onClose }: { device: DeviceView | null; onClose(): void }) {
  return (
    <Dialog open={device !== null} onClose={onClose} labelledBy="auto-consent-title" testId="auto-consent-dialog">
      {device && <AutoConsentForm key={device.id} device={device} onClose={onClose} />}
    </Dialog>
  );
}
