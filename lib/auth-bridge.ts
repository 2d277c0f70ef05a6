// The seam between the Auth.js route (bundled by Next) and Rein's identity
// service (in server.ts's module graph): server.ts installs it at start.
export interface AuthBridge {
  /** Throws (a message for the person) while attempts from this account or address must wait. */
  verifyCredentials(email: string, password: string, address?: string): Promise<SignedInUser | null>;
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  /** User.sessionVersion at sign-in: the session carries it ("sv") and is refused once it changes. */
  sessionVersion: number;
}

/** Set by server.ts on requests to /api/auth from the socket's address (a client's own value is overwritten). */
export const CLIENT_ADDRESS_HEADER = "x-rein-client-address";

const KEY = Symbol.for("rein.authBridge");

export function installAuthBridge(bridge: AuthBridge) {
  (globalThis as Record<symbol, unknown>)[KEY] = bridge;
}

export function authBridge(): AuthBridge {
  const bridge = (globalThis as Record<symbol, unknown>)[KEY] as AuthBridge | undefined;
  if (!bridge) throw new Error("Rein's server is not running: start it with npm start");
  return bridge;
}
