// Ending a person's sessions (docs/people-and-teams.md): disabling them or resetting
// their password raises User.sessionVersion, so every cookie minted before
// is refused on its next request, and tells this process's listeners (the
// realtime layer), which close the sockets already open for that person.
type Listener = (userId: string) => void;

const listeners = new Set<Listener>();

/** Calls `listener` with the user id whenever that person's sessions end; returns the unsubscribe. */
export function onSessionsEnded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called after the change is committed (a socket that reconnects at once must be refused). */
export function sessionsEnded(userId: string): void {
  for (const listener of listeners) {
    try {
      listener(userId);
    } catch (err) {
      console.error("a sessionsEnded listener failed", err);
    }
  }
}

const roleListeners = new Set<Listener>();

/**
 * Calls `listener` with the user id whenever that person's roles change (their
 * own role, a team role, a membership added or removed): sockets already open
 * read the person again, so a demoted person cannot take over what their new
 * role does not allow.
 */
export function onRolesChanged(listener: Listener): () => void {
  roleListeners.add(listener);
  return () => roleListeners.delete(listener);
}

/** Called after the change is committed. */
export function rolesChanged(userId: string): void {
  for (const listener of roleListeners) {
    try {
      listener(userId);
    } catch (err) {
      console.error("a rolesChanged listener failed", err);
    }
  }
}
