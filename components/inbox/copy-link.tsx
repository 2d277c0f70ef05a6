"use client";
// "Copy signed link": a single-use link to decide this request elsewhere
// (e.g. sent to a colleague); it is copied and shown in a small dialog.
import { useState } from "react";
import { Dialog, FieldError } from "@/components/ui";
import { LinkIcon } from "@/components/icons";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";

export function CopyLinkButton({ requestId }: { requestId: string }) {
  const create = trpc.humanRequests.createLink.useMutation();
  const [link, setLink] = useState<{ url: string; expiresAt: Date; copied: boolean } | null>(null);

  async function onClick() {
    try {
      const made = await create.mutateAsync({ id: requestId });
      const url = new URL(made.url, window.location.origin).href;
      let copied = false;
      try {
        await navigator.clipboard.writeText(url);
        copied = true;
      } catch {
        /* clipboard blocked: the dialog shows the link to copy by hand */
      }
      setLink({ url, expiresAt: made.expiresAt, copied });
    } catch {
      /* shown below from create.error */
    }
  }

  return (
    <>
      <button
        type="button"
        className="btn btn-sm"
        onClick={onClick}
        disabled={create.isPending}
        data-testid="copy-signed-link"
        title="A single-use link to decide this request; it still needs a logged-in person with the required role"
      >
        {create.isPending ? <span className="spinner" aria-hidden="true" /> : <LinkIcon />}
        Copy signed link
      </button>
      {create.isError && <FieldError message={errorMessage(create.error)} testId="copy-link-error" live />}
      <Dialog open={!!link} onClose={() => setLink(null)} size="sm" labelledBy="signed-link-title" testId="signed-link-dialog">
        {link && (
          <div className="dialog-form">
            <div className="dialog-header">
              <div>
                <h2 id="signed-link-title">Signed link</h2>
                <p>
                  {link.copied ? "Copied to the clipboard." : "Copy it from here."} It works once, for a logged-in person with the required
                  role.
                </p>
              </div>
            </div>
            <div className="dialog-body">
              <input
                className="input mono"
                readOnly
                value={link.url}
                aria-label="Signed link"
                onFocus={(e) => e.currentTarget.select()}
                autoFocus
                data-testid="signed-link-url"
              />
              <span className="hint">Expires {formatDateTime(link.expiresAt)}.</span>
            </div>
            <div className="dialog-footer">
              <span className="spacer" />
              <button
                type="button"
                className="btn"
                onClick={() =>
                  navigator.clipboard?.writeText(link.url).then(
                    () => setLink({ ...link, copied: true }),
                    () => undefined,
                  )
                }
              >
                Copy again
              </button>
              <button type="button" className="btn btn-primary" onClick={() => setLink(null)} data-testid="signed-link-close">
                Done
              </button>
            </div>
          </div>
        )}
      </Dialog>
    </>
  );
}
