// REST v1 for remote machines (docs/desktops-and-tiers.md#t3-remote-machines,
// docs/api.md): the same service, checks and audit as Settings › Machines.
// Admins change machines; everyone lists those of their teams. No answer
// holds a private key.
import { z } from "zod";
import {
  ConfirmHostKeyInput,
  RegisterMachineInput,
  UpdateMachinePatch,
  archiveMachine,
  confirmHostKey,
  contactMachine,
  getMachine,
  listMachines,
  registerMachine,
  testMachine,
  updateMachine,
} from "@/server/machines";
import { defineRoute, type Route } from "./contract";
import { Instant, TeamRef } from "./schemas";

const Machine = z
  .object({
    id: z.string(),
    name: z.string(),
    host: z.string(),
    port: z.number().int(),
    user: z.string().describe("The account Rein logs in as"),
    labels: z.array(z.string()),
    concurrency: z.number().int().describe("Runs at a time"),
    team: TeamRef.nullable().describe("The team that may use it; null: every team"),
    state: z.enum(["not_confirmed", "ready", "unreachable"]).describe("not_confirmed: no host key is pinned yet"),
    hostKeyFingerprint: z.string().nullable().describe("The pinned host key, SHA256:… as ssh-keygen -lf prints it"),
    publicKey: z.string().describe("Rein's public key for this machine: what its authorized_keys gets"),
    confinement: z.enum(["bubblewrap", "user", "unknown"]).describe("How commands are confined there, from the last test"),
    facts: z
      .object({
        os: z.string().nullable(),
        arch: z.string().nullable(),
        cpus: z.number().int().nullable(),
        bwrap: z.string().nullable().describe("bubblewrap's version, when installed"),
        bwrapWorks: z.boolean(),
      })
      .nullable()
      .describe("What the last test found"),
    lastSeenAt: Instant.nullable(),
    lastError: z.string().nullable().describe("The last test's failure, in words"),
    createdAt: Instant,
  })
  .meta({ id: "Machine" });

const Params = z.object({ id: z.string().min(1).max(64) });
const by = (ctx: { actor: Parameters<typeof listMachines>[1]; channel: "cli" | "api" }) => ({ actor: ctx.actor, channel: ctx.channel });

export const MACHINE_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/machines",
    minRole: "viewer",
    summary: "The remote machines you may use (admins: every one), never a private key",
    response: z.object({ machines: z.array(Machine) }),
    handle: async (ctx) => ({ machines: await listMachines(ctx.db, ctx.actor) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/machines",
    minRole: "admin",
    status: 201,
    summary: "Register a remote machine; Rein makes its key pair and answers with the public key to install",
    description:
      "Nothing is contacted yet. Next: install the public key for the user on the machine, POST …/contact to see its host key, then POST …/confirm-key.",
    body: RegisterMachineInput,
    response: Machine,
    errors: { 404: "No such team", 409: "The team is archived" },
    handle: (ctx) => registerMachine(ctx, by(ctx), ctx.body),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/machines/{id}",
    minRole: "viewer",
    summary: "One machine",
    params: Params,
    response: Machine,
    errors: { 404: "No such machine, or one of a team you are not in" },
    handle: (ctx) => getMachine(ctx.db, ctx.actor, ctx.params.id),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/machines/{id}",
    minRole: "admin",
    summary: "Change a machine: a new host, port or user unpins its host key",
    params: Params,
    body: UpdateMachinePatch,
    response: Machine,
    errors: { 404: "No such machine or team", 409: "The team is archived" },
    handle: (ctx) => updateMachine(ctx, by(ctx), ctx.params.id, ctx.body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/machines/{id}",
    minRole: "admin",
    summary: "Remove (archive) a machine: nothing connects to it again",
    params: Params,
    response: Machine,
    errors: { 404: "No such machine" },
    handle: (ctx) => archiveMachine(ctx, by(ctx), ctx.params.id),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/machines/{id}/contact",
    minRole: "admin",
    summary: "Contact the machine and answer with the host key fingerprint it presents now, without logging in",
    params: Params,
    response: z.object({
      fingerprint: z.string().describe("SHA256:…, as ssh-keygen -lf prints it"),
      pinned: z.boolean().describe("Whether it is the pinned key"),
      words: z.string(),
    }),
    errors: { 404: "No such machine", 503: "The machine could not be reached (the message says why)" },
    handle: (ctx) => contactMachine(ctx, by(ctx), ctx.params.id),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/machines/{id}/confirm-key",
    minRole: "admin",
    summary: "Pin the host key with this fingerprint, after contacting the machine again: another key is refused",
    params: Params,
    body: ConfirmHostKeyInput.pick({ fingerprint: true }),
    response: Machine,
    errors: {
      404: "No such machine",
      409: "The machine presents another host key now, or it changed meanwhile; nothing was pinned",
      503: "The machine could not be reached; nothing was pinned",
    },
    handle: (ctx) => confirmHostKey(ctx, by(ctx), ctx.params.id, ctx.body.fingerprint),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/machines/{id}/test",
    minRole: "admin",
    summary: "The connection test: connect with the pinned host key, and say in words what was found",
    params: Params,
    response: z.object({ ok: z.boolean(), words: z.string(), machine: Machine }),
    errors: { 404: "No such machine", 409: "Its host key is not confirmed yet" },
    handle: (ctx) => testMachine(ctx, by(ctx), ctx.params.id),
  }),
];
