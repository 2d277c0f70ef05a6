"use client";
// A single-use invitation or reset link, shown once: the link with a Copy
// button, its expiry, and who to send it to (Rein sends no e-mail).
import { useState } from "react";
import { formatDateTime } from "@/lib/format";

export function LinkReveal({ url, expiresAt, email, label }: { url: string; expiresAt: Date | string; email: string; label: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  // The server gives a full URL; a relative one (no public base known) is made absolute here.
  const href = typeof window === "undefined" ? url : new URL(url, window.location.origin).href;

  async function copy() {
    try {
      await navigator.clipboard.writeText(href);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied(null), 2000);
  }

  return (
    <div className="token-reveal" data-testid="link-reveal">
      <div>
        <strong>Copy the link now:</strong> it is shown only this once.
      </div>
      <div className="token-value">
        <input
          className="input"
          readOnly
          value={href}
          onFocus={(e) => e.target.select()}
          aria-label={label}
          autoFocus
          data-testid="link-reveal-url"
        />
        <button type="button" className="btn" onClick={copy} data-testid="link-reveal-copy">
          {copied === "yes" ? "Copied" : copied === "failed" ? "Select and copy" : "Copy"}
        </button>
      </div>
      <p className="small" data-testid="link-reveal-note">
        Send this link to <strong>{email}</strong>; it works once and expires on {formatDateTime(expiresAt)}. E-mail delivery is not
        configured, so Rein does not send it.
      </p>
    </div>
  );
}
