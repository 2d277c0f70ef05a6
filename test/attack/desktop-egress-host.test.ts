// Attack: the desktop's browser reaching the Rein host through one of its
// other addresses. A machine with a public or LAN address (here: interfaces
// the test makes up, public-looking ones the range checks alone let through)
// is refused by every spelling of those addresses, IPv4 and IPv6, and by a
// name that resolves there, also when DNS changes its answer between two
// connections. An allowed name whose DNS turns to cloud metadata is refused
// too: only an allowance of the address itself opens it.
import dns from "node:dns/promises";
import os from "node:os";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureEgress, decideEgress } from "@/server/compute";

const HOST_V4 = "93.184.216.34";
const HOST_V6 = "2a00:1450:4001:81b::200e";

const iface = (address: string, family: "IPv4" | "IPv6"): os.NetworkInterfaceInfo =>
  ({
    address,
    family,
    netmask: family === "IPv4" ? "255.255.255.0" : "ffff:ffff:ffff:ffff::",
    mac: "02:00:00:00:00:01",
    internal: false,
    cidr: `${address}/${family === "IPv4" ? 24 : 64}`,
    ...(family === "IPv6" ? { scopeid: 0 } : {}),
  }) as os.NetworkInterfaceInfo;

let answers: Record<string, string[]>;

beforeEach(() => {
  vi.spyOn(os, "networkInterfaces").mockReturnValue({ eth0: [iface(HOST_V4, "IPv4"), iface(HOST_V6, "IPv6")] });
  answers = {};
  vi.spyOn(dns, "lookup").mockImplementation((async (host: string) => {
    const list = answers[host];
    if (!list?.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const address = list.length > 1 ? list.shift()! : list[0];
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  }) as never);
});

afterEach(() => {
  vi.restoreAllMocks();
  configureEgress({ allow: [] });
});

const refused = async (host: string, port = 443) => !(await decideEgress(host, port, null)).ok;

describe("the machine's own addresses", () => {
  it("refuses the host's public IPv4 and IPv6 addresses however they are written", async () => {
    for (const host of [
      HOST_V4,
      `[${HOST_V6}]`,
      "2a00:1450:4001:81b:0:0:0:200e",
      "2A00:1450:4001:081B::200E",
      `::ffff:${HOST_V4}`,
      "[::ffff:5db8:d822]",
    ]) {
      expect(await refused(host), host).toBe(true);
    }
    // A public address that is not the machine's stays open.
    expect(await refused("93.184.216.35")).toBe(false);
  });

  it("refuses a name that resolves to the host, also when its DNS answered elsewhere a moment before", async () => {
    answers["rein-host.example"] = [HOST_V4];
    expect(await refused("rein-host.example")).toBe(true);
    // Rebinding: public for the first connection, the host for the next; each connection is checked on its own lookup.
    answers["rebind.example"] = ["93.184.216.35", HOST_V6];
    expect(await decideEgress("rebind.example", 443, null)).toMatchObject({ ok: true, address: "93.184.216.35" });
    expect(await refused("rebind.example")).toBe(true);
  });

  it("refuses 0.0.0.0 and cloud metadata, also behind an allowed name; an allowance of the address itself opens it", async () => {
    for (const host of ["0.0.0.0", "[::]", "169.254.169.254", "[fe80::1]"]) expect(await refused(host, 80), host).toBe(true);
    configureEgress({
      allow: [
        { host: "intranet.example", port: 80 },
        { host: "169.254.169.254", port: 80 },
      ],
    });
    answers["intranet.example"] = ["169.254.169.254"];
    expect(await refused("intranet.example", 80)).toBe(true);
    answers["intranet.example"] = ["0.0.0.0"];
    expect(await refused("intranet.example", 80)).toBe(true);
    expect(await refused("169.254.169.254", 80)).toBe(false);
  });
});
