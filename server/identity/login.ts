// Logging in with email and password, as the login page does it: throttled
// per account and address (login-throttle.ts), every failure recorded, and
// the same answer whether or not the account exists.
import type { Db } from "@/server/db";
import { type LoginThrottle, LoginThrottledError } from "./login-throttle";
import { loadActor, verifyCredentials } from "./users";
import type { Actor } from "./types";

export interface LoginAttempt {
  email: string;
  password: string;
  /** The client's address as the server's socket saw it; null when unknown. */
  address: string | null;
}

export interface LoginDeps {
  db: Db;
  throttle: LoginThrottle;
  /** Told of every failed attempt (the audit log); never of the password. */
  onFailure?(failure: { email: string; address: string | null; reason: "wrong email or password" | "throttled" }): Promise<void> | void;
}

/** The person, or null for a wrong email or password; throws LoginThrottledError while attempts must wait. */
export async function logIn(deps: LoginDeps, attempt: LoginAttempt): Promise<Actor | null> {
  const email = attempt.email.trim().toLowerCase();
  try {
    deps.throttle.check(email, attempt.address);
  } catch (err) {
    if (err instanceof LoginThrottledError) await deps.onFailure?.({ email, address: attempt.address, reason: "throttled" });
    throw err;
  }
  const userId = await verifyCredentials(deps.db, email, attempt.password);
  const actor = userId ? await loadActor(deps.db, userId) : null;
  if (!actor) {
    deps.throttle.failed(email, attempt.address);
    await deps.onFailure?.({ email, address: attempt.address, reason: "wrong email or password" });
    return null;
  }
  deps.throttle.succeeded(email);
  return actor;
}
