// Attack suite: remote machines (docs/security.md#remote-machines). Only
// admins register, contact, confirm, test, change or remove a machine (the
// tRPC gate and the service each refuse); another team's operator learns
// nothing of a team's machine; the private key is in no answer, audit entry or
// log line; a fingerprint the machine does not present now is never pinned;
// and a machine whose address changes is unpinned. Against a real sshd in a
// network namespace (test/helpers/sshd.ts).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import {
  archiveMachine,
  confirmHostKey,
  contactMachine,
  openMachine,
  registerMachine,
  testMachine,
  updateMachine,
  type MachineDeps,
} from "@/server/machines";
import { openValue } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { callerFor } from "../helpers/services";
import { startTestSshd, type TestSshd } from "../helpers/sshd";

let tk: TestKernel;
let sshd: TestSshd;
let deps: MachineDeps;
let operatorOfB: Actor;
let teamB: string;

const as = (actor: Actor) => callerFor(tk, actor);
const admin = () => as(tk.actors.admin);

async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => "OK",
    (err: { code?: string; data?: { code?: string } }) => err.data?.code ?? err.code ?? "?",
  );
}

beforeAll(async () => {
  [tk, sshd] = await Promise.all([createTestKernel({ secrets: true }), startTestSshd()]);
  deps = { db: tk.t.db, keyring: tk.keyring!, timeoutMs: 5000 };
  const id = await createUser(tk.t.db, {
    email: "b-operator@test.local",
    password: "test-password-1",
    role: "operator",
    teams: ["team-b"],
  });
  operatorOfB = (await loadActor(tk.t.db, id))!;
  teamB = operatorOfB.teamIds[0];
}, 60_000);

afterAll(async () => {
  await sshd?.cleanup();
  await tk?.cleanup();
});

const fakeFingerprint = `SHA256:${"Q".repeat(43)}`;

describe("who manages machines", () => {
  it("no one below admin registers, contacts, confirms, tests, changes or removes a machine, through tRPC or the service", async () => {
    const m = await admin().machines.register({ name: "guarded", host: sshd.host, user: sshd.user });
    for (const role of ["viewer", "operator", "approver"] as const) {
      const actor = tk.actors[role];
      const trpc = as(actor).machines;
      expect(await codeOf(trpc.register({ name: `mine-${role}`, host: sshd.host, user: "root" }))).toBe("FORBIDDEN");
      expect(await codeOf(trpc.contact({ id: m.id }))).toBe("FORBIDDEN");
      expect(await codeOf(trpc.confirmKey({ id: m.id, fingerprint: sshd.fingerprint() }))).toBe("FORBIDDEN");
      expect(await codeOf(trpc.test({ id: m.id }))).toBe("FORBIDDEN");
      expect(await codeOf(trpc.update({ id: m.id, patch: { host: "192.0.2.7" } }))).toBe("FORBIDDEN");
      expect(await codeOf(trpc.archive({ id: m.id }))).toBe("FORBIDDEN");
      // The service refuses on its own, whoever calls it (REST, the CLI, later code).
      const by = { actor, channel: "api" };
      expect(await codeOf(registerMachine(deps, by, { name: `svc-${role}`, host: sshd.host, user: "root" }))).toBe("FORBIDDEN");
      expect(await codeOf(contactMachine(deps, by, m.id))).toBe("FORBIDDEN");
      expect(await codeOf(confirmHostKey(deps, by, m.id, sshd.fingerprint()))).toBe("FORBIDDEN");
      expect(await codeOf(testMachine(deps, by, m.id))).toBe("FORBIDDEN");
      expect(await codeOf(updateMachine(deps, by, m.id, { user: "root" }))).toBe("FORBIDDEN");
      expect(await codeOf(archiveMachine(deps, by, m.id))).toBe("FORBIDDEN");
    }
    const row = await tk.t.db.machine.findUniqueOrThrow({ where: { id: m.id } });
    expect(row).toMatchObject({ host: sshd.host, user: sshd.user, hostKeyFingerprint: null, archivedAt: null });
    expect(await tk.t.db.machine.count({ where: { name: { startsWith: "mine-" } } })).toBe(0);
    expect(await tk.t.db.machine.count({ where: { name: { startsWith: "svc-" } } })).toBe(0);
  });

  it("another team's operator neither lists nor gets a team's machine; a machine for every team they do see", async () => {
    const teamA = tk.actors.operator.teamIds[0];
    const ofA = await admin().machines.register({ name: "team-a-gpu", host: sshd.host, user: sshd.user, teamId: teamA });
    const shared = await admin().machines.register({ name: "everyone", host: sshd.host, user: sshd.user });
    const seen = (await as(operatorOfB).machines.list()).map((m) => m.id);
    expect(seen).not.toContain(ofA.id);
    expect(seen).toContain(shared.id);
    expect(await codeOf(as(operatorOfB).machines.get({ id: ofA.id }))).toBe("NOT_FOUND");
    // Team A's own operator sees it.
    expect((await as(tk.actors.operator).machines.list()).map((m) => m.id)).toContain(ofA.id);
    expect((await as(tk.actors.operator).machines.get({ id: ofA.id })).team?.id).toBe(teamA);
    expect(teamB).not.toBe(teamA);
  });
});

describe("the private key", () => {
  it("is in no answer, audit entry or log line, through a whole life of a machine", async () => {
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
    );
    const answers: unknown[] = [];
    try {
      const m = await admin().machines.register({ name: "keyed", host: sshd.host, user: sshd.user, labels: ["gpu"] });
      answers.push(m);
      sshd.authorize(m.publicKey);
      const seen = await admin().machines.contact({ id: m.id });
      answers.push(seen, await admin().machines.confirmKey({ id: m.id, fingerprint: seen.fingerprint }));
      answers.push(await admin().machines.test({ id: m.id }));
      answers.push(await admin().machines.update({ id: m.id, patch: { labels: ["gpu", "big"], concurrency: 3 } }));
      answers.push(await admin().machines.list(), await admin().machines.get({ id: m.id }), await as(tk.actors.viewer).machines.list());
      answers.push(await admin().machines.archive({ id: m.id }));
      const row = await tk.t.db.machine.findUniqueOrThrow({ where: { id: m.id } });
      const privateKey = openValue(tk.keyring!, `machine:${m.id}:privateKey`, row.privateKeySealed);
      expect(privateKey).toContain("OPENSSH PRIVATE KEY");
      // The key's body, line by line, and its sealed form.
      const needles = [
        row.privateKeySealed,
        ...privateKey
          .split("\n")
          .filter((l) => l.length > 20 && !l.startsWith("-----"))
          .map((l) => l.slice(0, 40)),
      ];
      const audit = JSON.stringify(await tk.t.db.auditEntry.findMany({ where: { subject: "keyed" } }));
      expect(audit).toContain("machine.tested");
      const haystacks = { answers: JSON.stringify(answers), audit, logs: logged.join("\n"), sshd: sshd.log() };
      for (const [where, text] of Object.entries(haystacks)) for (const needle of needles) expect(text.includes(needle), where).toBe(false);
      // And a sealed key copied to another machine's row does not open there.
      const other = await admin().machines.register({ name: "other", host: sshd.host, user: sshd.user });
      expect(() => openValue(tk.keyring!, `machine:${other.id}:privateKey`, row.privateKeySealed)).toThrow();
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

describe("pinning", () => {
  it("a fingerprint the machine does not present now is refused, and nothing is pinned", async () => {
    const m = await admin().machines.register({ name: "pin-me", host: sshd.host, user: sshd.user });
    await expect(admin().machines.confirmKey({ id: m.id, fingerprint: fakeFingerprint })).rejects.toThrow(
      `pin-me presents the host key ${sshd.fingerprint()} now, not ${fakeFingerprint}: nothing was pinned`,
    );
    expect((await tk.t.db.machine.findUniqueOrThrow({ where: { id: m.id } })).hostKeyFingerprint).toBeNull();
    // A key shown at first contact that the machine no longer presents is refused too.
    const shown = (await admin().machines.contact({ id: m.id })).fingerprint;
    await sshd.replaceHostKey();
    expect(await codeOf(admin().machines.confirmKey({ id: m.id, fingerprint: shown }))).toBe("CONFLICT");
    expect((await tk.t.db.machine.findUniqueOrThrow({ where: { id: m.id } })).hostKeyFingerprint).toBeNull();
    await expect(openMachine(deps, m.id)).rejects.toThrow(/not confirmed yet/);
  });

  it("a machine whose address or user an admin changes is unpinned; a label change keeps the pin", async () => {
    const m = await admin().machines.register({ name: "moving", host: sshd.host, user: sshd.user });
    sshd.authorize(m.publicKey);
    const pinned = await admin().machines.confirmKey({ id: m.id, fingerprint: sshd.fingerprint() });
    expect(pinned.state).toBe("ready");
    expect((await admin().machines.update({ id: m.id, patch: { labels: ["arm64"] } })).hostKeyFingerprint).toBe(sshd.fingerprint());
    for (const patch of [{ host: "192.0.2.9" }, { port: 2222 }, { user: "someone" }]) {
      await admin()
        .machines.confirmKey({ id: m.id, fingerprint: sshd.fingerprint() })
        .catch(() => undefined);
      const moved = await admin().machines.update({ id: m.id, patch });
      expect(moved, JSON.stringify(patch)).toMatchObject({ state: "not_confirmed", hostKeyFingerprint: null });
      const row = await tk.t.db.machine.findUniqueOrThrow({ where: { id: m.id } });
      expect(row.hostKey).toBeNull();
      await expect(openMachine(deps, m.id)).rejects.toThrow(/not confirmed yet/);
      expect(await codeOf(admin().machines.test({ id: m.id }))).toBe("CONFLICT");
      // Back to the real address for the next case (unpinned again by the move).
      await admin().machines.update({ id: m.id, patch: { host: sshd.host, port: 22, user: sshd.user } });
    }
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "moving", kind: "machine.updated" }, select: { detail: true } });
    expect(audit.some((a) => JSON.parse(a.detail).unpinned === sshd.fingerprint())).toBe(true);
  });
});

describe("hostile input", () => {
  it("an address, user, name or label that could be read as an option or spill into a line is refused", async () => {
    const base = { name: "hostile", host: sshd.host, user: sshd.user };
    for (const bad of [
      { host: "-oProxyCommand=touch /tmp/x" },
      { host: "a b" },
      { host: "host\nevil" },
      { user: "-l root" },
      { user: "Root;id" },
      { name: "x\ny" },
      { name: "a".repeat(65) },
      { labels: ["has space"] },
      { labels: Array.from({ length: 17 }, (_, i) => `l${i}`) },
      { concurrency: 0 },
      { port: 70000 },
    ])
      expect(await codeOf(admin().machines.register({ ...base, ...bad } as never)), JSON.stringify(bad)).toBe("BAD_REQUEST");
    expect(await tk.t.db.machine.count({ where: { name: "hostile" } })).toBe(0);
  });
});
