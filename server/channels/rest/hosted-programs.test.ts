// REST v1 for hosted programs, as a program uses it: everyone signed in
// lists them; only admins install (202, in the background) and test; an
// unknown program is 404 and one that comes with Rein has nothing to install
// (409). The test of Rein's test agent starts it for real in the sandbox.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HostedPrograms, registerHostedProgram } from "@/server/hosted";
import { createApiToken } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
let hosted: HostedPrograms;
let finishInstall: () => void = () => {};
let installed = false;
const tokens: Record<string, string> = {};
const unregister: Array<() => void> = [];

const call = (role: string, method: string, path: string) => rest.call(tokens[role], method, path);

beforeAll(async () => {
  tk = await createTestKernel();
  hosted = new HostedPrograms({
    db: tk.t.db,
    install: () => new Promise((resolve) => (finishInstall = () => ((installed = true), resolve("")))),
  });
  for (const role of ["admin", "approver", "operator", "viewer"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  rest = await startRestServer(testServices(tk, { hosted }));
});

afterEach(() => {
  while (unregister.length) unregister.pop()!();
});

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

describe("/api/v1/hosted-programs", () => {
  it("lists the programs to every role, with the agents using them", async () => {
    for (const role of ["viewer", "operator", "admin"]) {
      const res = await call(role, "GET", "/api/v1/hosted-programs");
      expect(res.status, role).toBe(200);
      const test = res.json.programs.find((p: { id: string }) => p.id === "rein-test-agent");
      expect(test).toMatchObject({
        name: "Rein test agent",
        package: null,
        installed: true,
        loadsSessions: true,
        commands: "terminal",
        agents: ["demo-hosted"],
      });
      expect(res.json.programs.find((p: { id: string }) => p.id === "qwen-code")).toMatchObject({ commands: "relay" });
    }
  });

  it("installs only for admins, in the background, and names what it refuses", async () => {
    unregister.push(
      registerHostedProgram({
        id: "rest-program",
        name: "REST program",
        description: "A program of this test.",
        speaks: ["anthropic"],
        loadsSessions: false,
        package: { name: "@example/rest-program", version: "2.0.0", integrity: "sha512-x" },
        install: () => (installed ? { binds: [] } : { missing: "@example/rest-program@2.0.0 is not installed" }),
        argv: ["node", "-e", ""],
        env: () => ({}),
      }),
    );
    for (const role of ["operator", "approver", "viewer"]) {
      const refused = await call(role, "POST", "/api/v1/hosted-programs/rest-program/install");
      expect(refused.status, role).toBe(403);
      expect(refused.json.error.message).toMatch(/needs the admin role/);
    }
    const accepted = await call("admin", "POST", "/api/v1/hosted-programs/rest-program/install");
    expect(accepted.status).toBe(202);
    expect(accepted.json).toMatchObject({ installed: false, install: { state: "installing", by: "admin" } });
    finishInstall();
    await hosted.settled();
    const listed = await call("viewer", "GET", "/api/v1/hosted-programs");
    expect(listed.json.programs.find((p: { id: string }) => p.id === "rest-program")).toMatchObject({
      installed: true,
      install: { state: "installed", message: "Installed @example/rest-program@2.0.0" },
    });
    const audit = await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "hosted:rest-program" }, orderBy: { id: "asc" } });
    expect(audit.channel).toBe("api");
    const bundled = await call("admin", "POST", "/api/v1/hosted-programs/rein-test-agent/install");
    expect([bundled.status, bundled.json.error.code]).toEqual([409, "CONFLICT"]);
    expect((await call("admin", "POST", "/api/v1/hosted-programs/nothing-here/install")).status).toBe(404);
  });

  it("tests a program for admins: Rein's test agent answers initialize", async () => {
    expect((await call("operator", "POST", "/api/v1/hosted-programs/rein-test-agent/test")).status).toBe(403);
    expect((await call("admin", "POST", "/api/v1/hosted-programs/nothing-here/test")).status).toBe(404);
    const res = await call("admin", "POST", "/api/v1/hosted-programs/rein-test-agent/test");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      ok: true,
      agent: { name: "rein-test-agent", version: "1.0.0" },
      loadsSessions: true,
      authMethods: [],
    });
  });
});
