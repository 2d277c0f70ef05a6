// Who makes a change through tRPC, for the audit log's channel: the web UI
// (a session) is "admin", an API token "api".
import type { Acting, Actor } from "@/server/identity";

export const acting = (actor: Actor): Acting => ({
  actor,
  channel: actor.via === "session" ? "admin" : actor.via === "token" ? "api" : "cli",
});
