"use client";
// Copy an agent under a new name (the way to change a built-in one): version 1
// of the copy, visible to everyone or one of the caller's teams.
import { useRouter } from "next/navigation";
import { useEffect, useId, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock, FieldError } from "@/components/ui";
import { suggestCopyName } from "@/lib/agent-draft";
import { issuesOf } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";
import { useTeamChoices } from "./use-team-choices";

export function CopyDialog({ from, onClose }: { from: string | null; onClose(): void }) {
  const titleId = useId();
  const router = useRouter();
  const utils = trpc.useUtils();
  const agents = trpc.agents.list.useQuery({ includeArchived: true }, { enabled: from !== null, staleTime: 30_000 });
  const teams = useTeamChoices();
  const copy = trpc.agents.copy.useMutation();
  const [name, setName] = useState("");
  const [teamId, setTeamId] = useState("");
  const [edited, setEdited] = useState(false);

  useEffect(() => {
    if (!from) return;
    setEdited(false);
    setTeamId("");
    copy.reset();
    // Once per opening: a new dialog starts clean (`copy` is a new object on every render).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the opening, see above
  }, [from]);
  useEffect(() => {
    if (from && !edited)
      setName(
        suggestCopyName(
          from,
          (agents.data ?? []).map((a) => a.name),
        ),
      );
  }, [from, edited, agents.data]);

  const nameProblem = issuesOf(copy.error)?.find((i) => i.path === "name" || i.path.endsWith(".name"))?.message;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!from || copy.isPending) return;
    copy.mutate(
      { from, name: name.trim(), teamId: teamId || undefined },
      {
        onSuccess(created) {
          void utils.agents.list.invalidate();
          onClose();
          router.push(`/agents/${encodeURIComponent(created.name)}`);
        },
      },
    );
  }

  return (
    <Dialog open={from !== null} onClose={onClose} size="sm" labelledBy={titleId} testId="agent-copy-dialog">
      <form className="dialog-form" onSubmit={submit} noValidate>
        <div className="dialog-header">
          <div>
            <h2 id={titleId}>Copy {from}</h2>
            <p>The copy starts at version 1 with the same spec; you can change it freely.</p>
          </div>
        </div>
        <div className="dialog-body">
          <div className="field">
            <label htmlFor="agent-copy-name">Name of the copy</label>
            <input
              id="agent-copy-name"
              className="input mono"
              value={name}
              autoFocus
              spellCheck={false}
              maxLength={64}
              onChange={(e) => {
                setName(e.target.value);
                setEdited(true);
                if (copy.error) copy.reset();
              }}
              aria-invalid={nameProblem ? true : undefined}
              data-testid="agent-copy-name"
            />
            {nameProblem ? <FieldError message={nameProblem} /> : <span className="hint">Lowercase letters, digits and dashes.</span>}
          </div>
          <div className="field">
            <label htmlFor="agent-copy-team">Visible to</label>
            <select id="agent-copy-team" className="select" value={teamId} onChange={(e) => setTeamId(e.target.value)}>
              <option value="">Everyone</option>
              {teams.map((t) => (
                <option key={t.id} value={t.id}>
                  Team {t.name}
                </option>
              ))}
            </select>
          </div>
          {copy.error && !nameProblem && <ErrorBlock error={copy.error} testId="agent-copy-error" />}
        </div>
        <DialogFooter onClose={onClose} busy={copy.isPending} disabled={!name.trim()} label="Copy" testId="agent-copy-confirm" />
      </form>
    </Dialog>
  );
}

/** A button that opens the copy dialog for one agent. */
export function CopyButton({
  name,
  label = "Copy",
  primary = false,
  small = false,
  testId,
}: {
  name: string;
  label?: string;
  primary?: boolean;
  small?: boolean;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={`btn${primary ? " btn-primary" : ""}${small ? " btn-sm" : ""}`}
        onClick={() => setOpen(true)}
        title={`Copy ${name} under a new name`}
        data-testid={testId ?? "agent-copy"}
      >
        {label}
      </button>
      <CopyDialog from={open ? name : null} onClose={() => setOpen(false)} />
    </>
  );
}
