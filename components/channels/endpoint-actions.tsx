"use client";
// What an admin does with one webhook: send a test ping (the answer shown
// here), rotate its secret (shown once), turn it off or on, edit it, recover
// what it missed, remove it.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmAction, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatDuration } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import styles from "./channels.module.css";
import { CHANNELS_HREF, statusWords, type Endpoint } from "./format";
import { RecoverDialog } from "./recover-dialog";
import { SecretDialog } from "./secret-dialog";
import { WebhookDialog } from "./webhook-dialog";

type Confirming = "rotate" | "remove" | null;

export function EndpointActions({ endpoint }: { endpoint: Endpoint }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [editing, setEditing] = useState(false);
  const [recovering, setRecovering] = useState(false);
  const [secret, setSecret] = useState<{ value: string; until: string | null } | null>(null);
  const refresh = (e?: Endpoint) => {
    if (e) utils.webhooks.get.setData({ id: endpoint.id }, e);
    else void utils.webhooks.get.invalidate({ id: endpoint.id });
    void utils.webhooks.list.invalidate();
  };
  const test = trpc.webhooks.test.useMutation({ onSettled: () => refresh() });
  const rotate = trpc.webhooks.rotate.useMutation({
    onSuccess: (r) => {
      refresh(r.endpoint);
      setConfirming(null);
      setSecret({ value: r.secret, until: r.endpoint.rotatingUntil });
    },
  });
  const toggle = trpc.webhooks.update.useMutation({ onSuccess: (e) => refresh(e) });
  const remove = trpc.webhooks.remove.useMutation({
    onSuccess: () => {
      void utils.webhooks.list.invalidate();
      router.push(CHANNELS_HREF);
    },
  });

  return (
    <div className="stack" style={{ gap: 10, marginTop: 16 }}>
      <div className={styles.actions}>
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => test.mutate({ id: endpoint.id })}
          disabled={test.isPending || !endpoint.enabled}
          title={endpoint.enabled ? undefined : "Turn the webhook on to test it"}
          data-testid="webhook-test"
        >
          {test.isPending && <span className="spinner" aria-hidden="true" />}
          {test.isPending ? "Sending…" : "Send test ping"}
        </button>
        <button type="button" className="btn" onClick={() => setEditing(true)} data-testid="webhook-edit">
          Edit
        </button>
        <button type="button" className="btn" onClick={() => setConfirming("rotate")} data-testid="webhook-rotate">
          Rotate secret
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => setRecovering(true)}
          disabled={!endpoint.enabled}
          title={endpoint.enabled ? undefined : "Turn the webhook on to recover"}
          data-testid="webhook-recover"
        >
          Recover…
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => toggle.mutate({ id: endpoint.id, patch: { enabled: !endpoint.enabled } })}
          disabled={toggle.isPending}
          data-testid="webhook-toggle"
        >
          {toggle.isPending && <span className="spinner" aria-hidden="true" />}
          {endpoint.enabled ? "Turn off" : "Turn on"}
        </button>
        <span className="spacer" />
        <button type="button" className="btn btn-danger" onClick={() => setConfirming("remove")} data-testid="webhook-remove">
          Remove
        </button>
      </div>
      <div className={styles.testResult} aria-live="polite" data-testid="webhook-test-result">
        {test.isError && <FieldError message={errorMessage(test.error)} />}
        {test.data && (
          <span className={test.data.delivered ? "badge badge-ok" : "badge badge-error"} data-delivered={test.data.delivered}>
            {test.data.delivered ? "Delivered" : "Not delivered"}: {statusWords(test.data.response?.status, test.data.error)} in{" "}
            {formatDuration(test.data.durationMs)}
          </span>
        )}
        {toggle.isError && <FieldError message={errorMessage(toggle.error)} />}
      </div>
      <ConfirmAction
        open={confirming === "rotate"}
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        cancelLabel="Cancel"
        action={rotate}
        onConfirm={() => rotate.mutate({ id: endpoint.id })}
        onClose={() => setConfirming(null)}
      >
        Rein makes a new secret and shows it once. For 24 hours every request is signed with both the new and the previous secret, so your
        receiver can switch over without missing anything.
      </ConfirmAction>
      <ConfirmAction
        open={confirming === "remove"}
        title="Remove this webhook?"
        confirmLabel="Remove"
        action={remove}
        onConfirm={() => remove.mutate({ id: endpoint.id })}
        onClose={() => setConfirming(null)}
      >
        Nothing more is sent to <code>{endpoint.url}</code>, and its delivery log is deleted with it.
      </ConfirmAction>
      <SecretDialog
        secret={secret?.value ?? null}
        title="The new signing secret"
        note={
          secret?.until && (
            <p className="small" data-testid="webhook-rotate-note" style={{ margin: 0 }}>
              The previous secret also signs until {formatDateTime(secret.until)}.
            </p>
          )
        }
        onDone={() => setSecret(null)}
      />
      <WebhookDialog
        open={editing}
        endpoint={endpoint}
        onClose={() => setEditing(false)}
        onSaved={() => {
          setEditing(false);
        }}
      />
      <RecoverDialog open={recovering} endpointId={endpoint.id} onClose={() => setRecovering(false)} />
    </div>
  );
}
