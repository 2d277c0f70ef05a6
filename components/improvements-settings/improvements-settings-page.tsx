"use client";
// Settings › Improvements: whether friction starts hack cycles by itself, how
// many a day, how many failures make friction, the time box, and the sandbox
// capabilities runtime tools may be granted. Admins edit; others read.
import { useEffect, useState, type FormEvent } from "react";
import { FieldError, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type Settings = RouterOutputs["improvements"]["settings"];

const CAPABILITIES = [
  {
    value: "workspace:read",
    label: "Read the run's workspace (workspace:read)",
    hint: "A runtime tool that declares it may read files in the workspace of the run that calls it, e.g. to parse a CSV by path. It can never write, run commands or reach the network.",
  },
] as const;

export function ImprovementsSettingsPage() {
  const settings = trpc.improvements.settings.useQuery();
  return (
    <div className="page" data-testid="improvements-settings">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Improvements</h1>
          <p>
            How Rein improves itself: when its improver starts a hack cycle on the friction it sees in runs, how often, for how long, and
            what the runtime tools it writes may touch.
          </p>
        </div>
      </div>
      <PageShell query={settings} loading={<SkeletonRows rows={5} columns={2} />} failed="Could not load the self-improvement settings">
        {(data) => <SettingsForm current={data} />}
      </PageShell>
    </div>
  );
}

interface Draft {
  autoStart: boolean;
  maxCyclesPerDay: string;
  repeatThreshold: string;
  timeBoxMin: string;
  allowedCapabilities: string[];
  extensionsRequireApproval: boolean;
}

const toDraft = (s: Settings): Draft => ({
  autoStart: s.autoStart,
  maxCyclesPerDay: String(s.maxCyclesPerDay),
  repeatThreshold: String(s.repeatThreshold),
  timeBoxMin: String(Math.round((s.timeBoxSec / 60) * 100) / 100),
  allowedCapabilities: [...s.allowedCapabilities],
  extensionsRequireApproval: s.extensionsRequireApproval,
});

/** The problems of a draft, by field, in words (the server checks again). */
function problemsOf(d: Draft): Partial<Record<keyof Draft, string>> {
  const p: Partial<Record<keyof Draft, string>> = {};
  const whole = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v) : NaN);
  const cycles = whole(d.maxCyclesPerDay);
  if (!(cycles >= 0 && cycles <= 1000)) p.maxCyclesPerDay = "A whole number from 0 (none) to 1000";
  const repeats = whole(d.repeatThreshold);
  if (!(repeats >= 2 && repeats <= 50)) p.repeatThreshold = "A whole number from 2 to 50";
  const minutes = Number(d.timeBoxMin);
  if (!d.timeBoxMin.trim() || !Number.isFinite(minutes) || minutes * 60 < 30 || minutes > 60)
    p.timeBoxMin = "From 0.5 minutes (30 seconds) to 60 minutes";
  return p;
}

function SettingsForm({ current }: { current: Settings }) {
  const utils = trpc.useUtils();
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const [draft, setDraft] = useState<Draft>(() => toDraft(current));
  const savedKey = JSON.stringify(current);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the saved content: a refetch of the same settings keeps the edits
  useEffect(() => setDraft(toDraft(current)), [savedKey]);
  const save = trpc.improvements.saveSettings.useMutation({ onSuccess: (s) => utils.improvements.settings.setData(undefined, s) });
  const problems = problemsOf(draft);
  const invalid = Object.keys(problems).length > 0;
  const changed = JSON.stringify(draft) !== JSON.stringify(toDraft(current));
  const patch = (p: Partial<Draft>) => (save.reset(), setDraft((d) => ({ ...d, ...p })));
  const readOnlyWhy = isAdmin ? undefined : "Changing these settings needs the admin role";

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (invalid || !isAdmin) return;
    save.mutate({
      autoStart: draft.autoStart,
      maxCyclesPerDay: Number(draft.maxCyclesPerDay),
      repeatThreshold: Number(draft.repeatThreshold),
      timeBoxSec: Math.round(Number(draft.timeBoxMin) * 60),
      allowedCapabilities: draft.allowedCapabilities,
      extensionsRequireApproval: draft.extensionsRequireApproval,
    });
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit} data-testid="improvements-settings-form">
      {!isAdmin && (
        <p className="muted small" data-testid="settings-read-only">
          You can read these settings; changing them needs the admin role.
        </p>
      )}
      <fieldset disabled={!isAdmin} className="stack" style={{ border: 0, padding: 0, margin: 0, gap: 16 }} title={readOnlyWhy}>
        <label className="row" style={{ gap: 8 }}>
          <input
            type="checkbox"
            checked={draft.autoStart}
            onChange={(e) => patch({ autoStart: e.target.checked })}
            data-testid="settings-auto-start"
          />
          <span>
            <strong>Start hack cycles automatically</strong>
            <span className="muted small" style={{ display: "block" }}>
              When friction crosses its threshold, the improver starts working on it without a person. Off: cycles start only when someone
              asks.
            </span>
          </span>
        </label>
        <div className="field" style={{ maxWidth: 320 }}>
          <label htmlFor="max-cycles">Hack cycles per agent per day</label>
          <input
            id="max-cycles"
            className="input"
            inputMode="numeric"
            value={draft.maxCyclesPerDay}
            onChange={(e) => patch({ maxCyclesPerDay: e.target.value })}
            aria-invalid={!!problems.maxCyclesPerDay}
            data-testid="settings-max-cycles"
          />
          <FieldError message={problems.maxCyclesPerDay} />
        </div>
        <div className="field" style={{ maxWidth: 320 }}>
          <label htmlFor="repeat-threshold">Failures before friction</label>
          <input
            id="repeat-threshold"
            className="input"
            inputMode="numeric"
            value={draft.repeatThreshold}
            onChange={(e) => patch({ repeatThreshold: e.target.value })}
            aria-invalid={!!problems.repeatThreshold}
            data-testid="settings-repeat-threshold"
          />
          <span className="muted small">How many times a tool must fail the same way before Rein records it as friction.</span>
          <FieldError message={problems.repeatThreshold} />
        </div>
        <div className="field" style={{ maxWidth: 320 }}>
          <label htmlFor="time-box">Time box of a hack cycle (minutes)</label>
          <input
            id="time-box"
            className="input"
            inputMode="decimal"
            value={draft.timeBoxMin}
            onChange={(e) => patch({ timeBoxMin: e.target.value })}
            aria-invalid={!!problems.timeBoxMin}
            data-testid="settings-time-box"
          />
          <span className="muted small">A cycle still working after this long is stopped and its friction left for later.</span>
          <FieldError message={problems.timeBoxMin} />
        </div>
        <div className="field">
          <span className="label">Capabilities runtime tools may be granted</span>
          <span className="muted small">
            By default a runtime tool computes only on its arguments. A tool that declares a capability gets it only if it is allowed here.
          </span>
          {CAPABILITIES.map((c) => (
            <label key={c.value} className="row" style={{ gap: 8, alignItems: "flex-start" }}>
              <input
                type="checkbox"
                checked={draft.allowedCapabilities.includes(c.value)}
                onChange={(e) =>
                  patch({
                    allowedCapabilities: e.target.checked
                      ? [...draft.allowedCapabilities, c.value]
                      : draft.allowedCapabilities.filter((x) => x !== c.value),
                  })
                }
                data-testid="settings-capability"
                data-capability={c.value}
              />
              <span>
                {c.label}
                <span className="muted small" style={{ display: "block" }}>
                  {c.hint}
                </span>
              </span>
            </label>
          ))}
        </div>
        <label className="row" style={{ gap: 8 }}>
          <input
            type="checkbox"
            checked={draft.extensionsRequireApproval}
            onChange={(e) => patch({ extensionsRequireApproval: e.target.checked })}
            data-testid="settings-extensions-approval"
          />
          <span>
            <strong>Extensions require approval</strong>
            <span className="muted small" style={{ display: "block" }}>
              An extension whose tests all pass waits for an admin other than the one who proposed it before it is installed for every
              agent. Off: it is installed as soon as its tests pass.
            </span>
          </span>
        </label>
      </fieldset>
      {save.error && (
        <div className="error-box" role="alert" data-testid="settings-error">
          Not saved: {errorMessage(save.error)}
        </div>
      )}
      {save.isSuccess && !changed && (
        <div className="muted small" role="status">
          Saved.
        </div>
      )}
      <div className="row" style={{ gap: 8 }}>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!isAdmin || invalid || !changed || save.isPending}
          title={readOnlyWhy ?? (invalid ? "Fix the fields marked in red" : !changed ? "No changes to save" : undefined)}
          data-testid="settings-save"
        >
          {save.isPending ? "Saving…" : "Save"}
        </button>
        {changed && (
          <button type="button" className="btn" onClick={() => setDraft(toDraft(current))}>
            Undo changes
          </button>
        )}
      </div>
    </form>
  );
}
