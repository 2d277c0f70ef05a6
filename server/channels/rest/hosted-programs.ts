// REST v1 for hosted agents' programs (docs/hosted-agents.md#the-programs):
// the same service, checks and audit as Settings › Hosted agents. Anyone
// signed in lists them; admins install and test.
import { z } from "zod";
import { defineRoute, type Route } from "./contract";

const ProgramParams = z.object({ id: z.string().describe('The program\'s id, e.g. "claude-code"') });

const Install = z
  .object({
    state: z.enum(["installing", "installed", "failed"]),
    message: z.string().describe("Where it stands, in words; a failure says why"),
    by: z.string().describe("The admin who started it"),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
  })
  .meta({ id: "HostedProgramInstall" });

const Program = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    package: z
      .object({ name: z.string(), version: z.string() })
      .nullable()
      .describe("The pinned npm package it is installed from; null: it comes with Rein"),
    installed: z.boolean(),
    notInstalledReason: z.string().nullable().describe("Why it cannot run here, in words"),
    protocols: z.array(z.object({ id: z.string(), name: z.string() })).describe("The protocols its model calls use through the gateway"),
    loadsSessions: z.boolean().describe("It reloads its session after a restart of Rein (session/load)"),
    commands: z
      .enum(["terminal", "relay"])
      .describe(
        "How its commands reach the Terminal tab: it asks Rein for terminals (terminal), or it runs `bash -c` and Rein's shell relay runs them (relay)",
      ),
    agents: z.array(z.string()).describe("The agents you may see whose latest version runs it"),
    install: Install.nullable().describe("The latest install this server ran since it started"),
  })
  .meta({ id: "HostedProgram" });

const TestResult = z
  .object({
    program: z.string(),
    ok: z.boolean().describe("It started and answered initialize"),
    summary: z.string().describe("What it answered, or why it did not, in words"),
    agent: z.object({ name: z.string(), version: z.string().nullable() }).nullable().describe("The name and version it gave"),
    protocolVersion: z.number().int().nullable(),
    loadsSessions: z.boolean().nullable().describe("Whether it said it can reload a session"),
    authMethods: z.array(z.string()).describe("The sign-in methods it offers (Rein uses none: its calls go through the gateway)"),
    tookMs: z.number().int(),
  })
  .meta({ id: "HostedProgramTest" });

export const HOSTED_PROGRAM_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/hosted-programs",
    minRole: "viewer",
    summary: "The programs hosted agents can run: installed or not, pinned package, protocols, session reload, and the agents using each",
    response: z.object({ programs: z.array(Program) }),
    handle: (ctx) => ctx.hosted.list(ctx.actor),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/hosted-programs/{id}/install",
    minRole: "admin",
    status: 202,
    summary: "Install a program's pinned package in the background; the program's install field says how it goes",
    description:
      "npm installs the allow-listed package at its pinned version, without install scripts, and Rein keeps it only if the integrity matches. Asking again while an install runs returns that install.",
    params: ProgramParams,
    response: Program,
    errors: { 404: "Rein has no such program", 409: "The program comes with Rein; there is nothing to install" },
    handle: (ctx) => ctx.hosted.install(ctx.actor, ctx.params.id, ctx.channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/hosted-programs/{id}/test",
    minRole: "admin",
    summary: "Start a program in a throwaway sandbox, ask it initialize, and report what it answered or why it did not (within 20 s)",
    params: ProgramParams,
    response: TestResult,
    errors: { 404: "Rein has no such program" },
    handle: (ctx) => ctx.hosted.test(ctx.actor, ctx.params.id),
  }),
];
