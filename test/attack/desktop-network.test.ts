// Attack suite, issue class 8: the desktop's browser reaches nothing of the
// host. A service the test starts on the host's loopback (with a canary) and
// Rein-like ports stay out of reach whatever the browser is pointed at; an
// allowance by name (as Rein's demo site has) is the only way in; the public
// internet stays open (here: an address the policy calls public, which
// simply does not answer on this machine).
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperativeDesktop, configureEgress, decideEgress, isPrivateAddress, probeSandbox } from "@/server/compute";

const CANARY = "host-loopback-canary-5b1e";
let service: http.Server;
let port: number;
let desktop: OperativeDesktop;
let base: string;

beforeAll(async () => {
  service = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<html><body>${CANARY} ${req.url}</body></html>`);
  });
  await new Promise<void>((r) => service.listen(0, "0.0.0.0", r));
  port = (service.address() as AddressInfo).port;
  // As Rein's own demo site: one path of one port, allowed by name.
  configureEgress({ allow: [{ host: "127.0.0.1", port, pathPrefix: "/allowed" }] });
  base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-attack-desktop-"));
  if (probeSandbox().ok) desktop = await OperativeDesktop.start({ dir: path.join(base, "desk"), width: 1024, height: 700 });
}, 60_000);

afterAll(async () => {
  await desktop?.stop();
  configureEgress({ allow: [] });
  service.close();
  fs.rmSync(base, { recursive: true, force: true });
});

describe("the egress policy", () => {
  it("calls loopback, private, link-local and reserved addresses private, public ones public", () => {
    for (const ip of [
      "127.0.0.1",
      "127.9.9.9",
      "0.0.0.0",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "0:0:0:0:0:ffff:7f00:1",
      "::7f00:1",
      "::127.0.0.1",
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:808:808"]) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it("refuses the host by any name, allows only what an allowance names", async () => {
    for (const host of ["127.0.0.1", "localhost", "0.0.0.0", "[::1]", "::ffff:127.0.0.1", "[::ffff:7f00:1]"])
      expect((await decideEgress(host, port, "/")).ok, host).toBe(false);
    expect((await decideEgress("127.0.0.1", port, "/allowed/page")).ok).toBe(true);
    expect((await decideEgress("127.0.0.1", port, "/allowedx")).ok).toBe(false);
    expect((await decideEgress("127.0.0.1", port + 1, "/allowed/page")).ok).toBe(false);
    expect((await decideEgress("127.0.0.1", port, null)).ok).toBe(false); // a tunnel carries no path to check
  });
});

describe.skipIf(!probeSandbox().ok)("a desktop's browser", () => {
  async function visit(url: string): Promise<string> {
    const page = await desktop.page();
    await page.goto(url, { timeout: 10_000 }).catch(() => {});
    return page.content().catch(() => "");
  }

  it("never reads a service on the host's loopback, however it is named", async () => {
    for (const host of ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "127.1", "2130706433"]) {
      const html = await visit(`http://${host}:${port}/secret`);
      expect(html, host).not.toContain(CANARY);
    }
  });

  it("reaches what an allowance names, and nothing beside it on the same port", async () => {
    expect(await visit(`http://127.0.0.1:${port}/allowed/page`)).toContain(CANARY);
    expect(await visit(`http://127.0.0.1:${port}/not-allowed`)).not.toContain(CANARY);
  });
});
