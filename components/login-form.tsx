"use client";
import { signIn } from "next-auth/react";
import { useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ErrorBlock } from "@/components/ui";
import { Wordmark } from "@/components/top-nav";

/** Only paths on this site; anything else (other origins, //host, the login page) goes to /runs. */
function safeNext(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/runs";
  try {
    const url = new URL(next, window.location.origin);
    if (url.origin !== window.location.origin || url.pathname.startsWith("/login") || url.pathname.startsWith("/api/")) return "/runs";
    return url.pathname + url.search + url.hash;
  } catch {
    return "/runs";
  }
}

export function LoginForm() {
  const params = useSearchParams();
  // ?email= comes from the invitation and reset pages: the address is filled in, the password is next.
  const [email, setEmail] = useState(() => params.get("email") ?? "");
  const emailGiven = !!params.get("email");
  const [password, setPassword] = useState("");
  // Auth.js sends failed redirect-mode logins back here with ?error=...
  const [error, setError] = useState<string | null>(() => {
    const code = params.get("error");
    if (!code) return null;
    return code === "CredentialsSignin"
      ? "Wrong email or password"
      : code === "SessionRequired"
        ? "Log in to continue"
        : `Could not log in (${code})`;
  });
  const [submitting, setSubmitting] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!email.trim() || !password) {
      setError("Enter your email and password");
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      // next-auth reads the outcome from the callback URL's ?error=, which defaults to this
      // page's URL (it may carry an old ?error=); pass a clean one. We navigate ourselves.
      const result = await signIn("credentials", { email: email.trim(), password, redirect: false, callbackUrl: "/runs" });
      if (result?.ok && !result.error) {
        window.location.assign(safeNext(params.get("next")));
        return;
      }
      setError(
        result?.error === "CredentialsSignin" || !result?.error
          ? "Wrong email or password"
          : result.error.startsWith("Too many")
            ? result.error
            : `Could not log in: ${result.error}`,
      );
    } catch {
      setError("Cannot reach the Rein server. Check that it is running, then try again.");
    }
    setSubmitting(false);
  }

  return (
    <form className="card login-card" onSubmit={onSubmit} noValidate aria-labelledby="login-title">
      <Wordmark />
      <div>
        <h1 id="login-title">Log in</h1>
        <p className="muted">Launch agents on a goal and watch them work.</p>
      </div>
      <ErrorBlock message={error} testId="login-error" />
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          id="email"
          className="input"
          type="email"
          autoComplete="username"
          autoFocus={!emailGiven}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          data-testid="login-email"
        />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          id="password"
          className="input"
          type="password"
          autoComplete="current-password"
          autoFocus={emailGiven}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid="login-password"
        />
      </div>
      <button type="submit" className="btn btn-primary" disabled={submitting} data-testid="login-submit" style={{ height: 38 }}>
        {submitting && <span className="spinner" aria-hidden="true" />}
        {submitting ? "Logging in…" : "Log in"}
      </button>
      <p className="hint">
        First time here? The first admin&apos;s credentials were printed when the server started (or set with REIN_ADMIN_EMAIL and
        REIN_ADMIN_PASSWORD).
      </p>
    </form>
  );
}
