// Attack class 30: a worker's desktop tunnel (several machines). A worker
// answers `GET /internal/vnc/<runId>/<desktopId>` upgrades with a connection
// to the run's desktop, logged in with its VNC password. Anyone who reaches
// the worker's port must get nothing without a web process's signature for
// exactly that run's current desktop at the run's lease epoch, still fresh:
// not a user's API token, not a signature by another secret, not one for
// another run or an older desktop, not an expired one, not one dated far
// ahead; and a worker that lost the run (another took it over) opens nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TUNNEL_PATH, TUNNEL_TOKEN_TTL_MS, signTunnel } from "@/server/cluster";
import { startTestDesktop, type TestDesktop } from "@/test/helpers/desktop";
import { CLUSTER_SECRET, askForTunnel, startTunnelWorld, type TunnelWorld } from "@/test/helpers/desktop-tunnel";

describe("attack: a worker's desktop tunnel", () => {
  let desktop: TestDesktop;
  let world: TunnelWorld;
  let base: string;
  const path = (runId: string, desktopId: string) => `${TUNNEL_PATH}/${encodeURIComponent(runId)}/${encodeURIComponent(desktopId)}`;

  beforeAll(async () => {
    desktop = await startTestDesktop();
    world = await startTunnelWorld();
    base = world.worker.base;
  });

  afterAll(async () => {
    await world?.close();
    await desktop?.stop();
  });

  it("lets in only a fresh signature of this deployment for the run's current desktop", async () => {
    const d = world.worker.desktops.attach("run-a", desktop);
    const other = world.worker.desktops.attach("run-b", desktop);
    const ask = (headers: Record<string, string>, p = path("run-a", d.id)) => askForTunnel(base, p, headers);

    expect(await ask({})).toMatchObject({ status: 401, body: expect.stringContaining("signed request") });
    expect((await ask({ authorization: "Bearer rein_a-users-api-token" })).status).toBe(401);
    expect((await ask({ authorization: signTunnel("another-deployments-secret-0123456789", "run-a", d.id, 1) })).status).toBe(403);
    // A signature for run B's desktop opens neither run A's path nor run A's desktop under run B's name.
    expect((await ask({ authorization: signTunnel(CLUSTER_SECRET, "run-b", other.id, 1) })).status).toBe(403);
    expect((await ask({ authorization: signTunnel(CLUSTER_SECRET, "run-b", other.id, 1) }, path("run-b", d.id))).status).toBe(403);
    // Expired, or dated so far ahead it would never expire.
    expect(await ask({ authorization: signTunnel(CLUSTER_SECRET, "run-a", d.id, 1, Date.now() - 2 * TUNNEL_TOKEN_TTL_MS) })).toMatchObject({
      status: 403,
      body: expect.stringContaining("expired"),
    });
    expect((await ask({ authorization: signTunnel(CLUSTER_SECRET, "run-a", d.id, 1, Date.now() + 365 * 86_400_000) })).status).toBe(403);
    // A signature tampered with in its time or its last character.
    const good = signTunnel(CLUSTER_SECRET, "run-a", d.id, 1);
    const [epoch, stamp, sig] = good.slice("Rein-Tunnel ".length).split(".") as [string, string, string];
    expect((await ask({ authorization: `Rein-Tunnel ${epoch}.${Number(stamp) + 1000}.${sig}` })).status).toBe(403);
    expect((await ask({ authorization: `Rein-Tunnel ${Number(epoch) + 1}.${stamp}.${sig}` })).status).toBe(403);
    expect((await ask({ authorization: `Rein-Tunnel ${epoch}.${stamp}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}` })).status).toBe(
      403,
    );
    // Properly signed, for a desktop the run no longer has.
    expect(
      (await ask({ authorization: signTunnel(CLUSTER_SECRET, "run-a", "desktop-gone", 1) }, path("run-a", "desktop-gone"))).status,
    ).toBe(404);
    // Malformed paths.
    expect((await ask({ authorization: good }, `${TUNNEL_PATH}/run-a`)).status).toBe(404);
    expect((await ask({ authorization: good }, `${TUNNEL_PATH}/run-a/${d.id}/extra`)).status).toBe(404);
    expect((await ask({ authorization: good }, `${TUNNEL_PATH}/%E0%A4%A/${d.id}`)).status).toBe(400);

    // The one that is right gets the tunnel.
    expect((await ask({ authorization: good })).status).toBe(101);
  });

  it("opens nothing once another worker has taken the run over, even for a signature made before", async () => {
    const d = world.worker.desktops.attach("run-c", desktop);
    const signed = signTunnel(CLUSTER_SECRET, "run-c", d.id, 1);
    expect((await askForTunnel(base, path("run-c", d.id), { authorization: signed })).status).toBe(101);
    // Worker B wins the lease (epoch 2); this worker's desktop is still here, stale.
    world.leases.set("run-c", { owner: "worker-b", epoch: 2 });
    expect(await askForTunnel(base, path("run-c", d.id), { authorization: signed })).toMatchObject({
      status: 409,
      body: expect.stringContaining("another worker has taken it over"),
    });
    expect((await askForTunnel(base, path("run-c", d.id), { authorization: signTunnel(CLUSTER_SECRET, "run-c", d.id, 2) })).status).toBe(
      409,
    );
  });
});
