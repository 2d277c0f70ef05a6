// Attack: a webhook endpoint as a way into Rein's own network (issue 19). An
// admin's URL, or the DNS and redirects behind it, pointing at this machine,
// a private network or cloud metadata is refused before any connection,
// unless an admin allowed that host and port; each redirect is checked again.
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AllowHostsInput, RESPONSE_BODY_BYTES, sendWebhook } from "@/server/channels";

const servers: http.Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A local endpoint that counts what reached it and answers as told. */
async function endpoint(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, res) => res.end("ok")) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    req.resume();
    answer(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, hits };
}

const delivery = (url: string) => ({ url, headers: { "webhook-id": "msg_1" }, body: '{"type":"ping"}' });

describe("webhook targets", () => {
  it("this machine is refused unless an admin allowed the host, and nothing reaches it", async () => {
    const { port, hits } = await endpoint();
    const refused = await sendWebhook(delivery(`http://127.0.0.1:${port}/hook`));
    expect(refused).toMatchObject({ status: null, refused: true });
    expect(refused.error).toMatch(/Refused: 127\.0\.0\.1 is an address of this machine or a private network/);
    expect(hits).toEqual([]);
    const allowed = await sendWebhook(delivery(`http://127.0.0.1:${port}/hook`), { allowHosts: [`127.0.0.1:${port}`] });
    expect(allowed).toMatchObject({ status: 200, body: "ok" });
    expect(hits).toEqual(["/hook"]);
  });

  it.each([
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
    ["a private network", "http://10.1.2.3/hook"],
    ["another private range", "http://192.168.1.1/hook"],
    ["IPv6 loopback", "http://[::1]:9/hook"],
    ["IPv4 loopback written as IPv6", "http://[::ffff:127.0.0.1]:9/hook"],
    ["the unspecified address", "http://0.0.0.0:9/hook"],
    ["a file URL", "file:///etc/passwd"],
    ["credentials in the URL", "https://user:pass@example.com/hook"],
  ])("%s is refused", async (_, url) => {
    expect(await sendWebhook(delivery(url), { lookup: async () => [{ address: "93.184.216.34", family: 4 }] })).toMatchObject({
      status: null,
      refused: true,
    });
  });

  it("a name that resolves to this machine, or to anything private among public addresses, is refused", async () => {
    const { port, hits } = await endpoint();
    const lookup = async (host: string) =>
      host === "mixed.example"
        ? [
            { address: "93.184.216.34", family: 4 },
            { address: "127.0.0.1", family: 4 },
          ]
        : [{ address: "127.0.0.1", family: 4 }];
    expect((await sendWebhook(delivery(`http://hooks.example:${port}/hook`), { lookup })).error).toMatch(
      /hooks\.example is 127\.0\.0\.1, an address of this machine/,
    );
    expect((await sendWebhook(delivery(`http://mixed.example:${port}/hook`), { lookup })).refused).toBe(true);
    expect(hits).toEqual([]);
    // Allowed by name and port: it goes to the address that was checked.
    expect(
      await sendWebhook(delivery(`http://hooks.example:${port}/hook`), { lookup, allowHosts: [`hooks.example:${port}`] }),
    ).toMatchObject({ status: 200 });
    expect(hits).toEqual(["/hook"]);
  });

  it("a redirect is checked again: an allowed host cannot send the delivery on to one that is not", async () => {
    const inner = await endpoint();
    const outer = await endpoint((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${inner.port}/internal` });
      res.end();
    });
    const lookup = async () => [{ address: "127.0.0.1", family: 4 }];
    const result = await sendWebhook(delivery(`http://hooks.example:${outer.port}/hook`), {
      lookup,
      allowHosts: [`hooks.example:${outer.port}`],
    });
    expect(result).toMatchObject({ refused: true, finalUrl: `http://127.0.0.1:${inner.port}/internal` });
    expect(outer.hits).toEqual(["/hook"]);
    expect(inner.hits).toEqual([]);
  });

  it("a 302 is not followed (it would turn the POST into a GET); a slow endpoint times out; a long answer is kept to its first KiB", async () => {
    const moved = await endpoint((_req, res) => {
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    });
    const r302 = await sendWebhook(delivery(`http://127.0.0.1:${moved.port}/hook`), { allowHosts: [`127.0.0.1:${moved.port}`] });
    expect(r302).toMatchObject({ status: 302 });
    expect(r302.error).toMatch(/follows only 307 and 308/);
    expect(moved.hits).toEqual(["/hook"]);

    const slow = await endpoint(() => {});
    expect(
      await sendWebhook(delivery(`http://127.0.0.1:${slow.port}/hook`), { allowHosts: [`127.0.0.1:${slow.port}`], timeoutMs: 300 }),
    ).toMatchObject({ status: null, error: "no answer within 300 ms" });

    const chatty = await endpoint((_req, res) => res.end("y".repeat(50_000)));
    const long = await sendWebhook(delivery(`http://127.0.0.1:${chatty.port}/hook`), { allowHosts: [`127.0.0.1:${chatty.port}`] });
    expect(long.status).toBe(200);
    expect(long.body).toHaveLength(RESPONSE_BODY_BYTES);
  });

  it("allowing a host and port allows that port only: another service on the host, by URL or by a 307, stays refused", async () => {
    const receiver = await endpoint();
    const other = await endpoint();
    const lookup = async () => [{ address: "127.0.0.1", family: 4 }];
    // A host without a port means the scheme's default port (80 for http://, 443 for https://) only.
    expect(await sendWebhook(delivery(`http://127.0.0.1:${other.port}/admin`), { allowHosts: ["127.0.0.1"] })).toMatchObject({
      status: null,
      refused: true,
    });
    expect(await sendWebhook(delivery(`http://[::1]:${other.port}/admin`), { allowHosts: ["::1"] })).toMatchObject({
      status: null,
      refused: true,
    });
    const onOtherPort = await sendWebhook(delivery(`http://hooks.example:${other.port}/admin`), {
      lookup,
      allowHosts: [`hooks.example:${receiver.port}`],
    });
    expect(onOtherPort).toMatchObject({ status: null, refused: true });
    expect(onOtherPort.error).toContain(`an admin can allow hooks.example:${other.port}`);
    const bounce = await endpoint((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${other.port}/admin` });
      res.end();
    });
    const bounced = await sendWebhook(delivery(`http://127.0.0.1:${bounce.port}/hook`), { allowHosts: [`127.0.0.1:${bounce.port}`] });
    expect(bounced).toMatchObject({ refused: true, finalUrl: `http://127.0.0.1:${other.port}/admin` });
    expect(other.hits).toEqual([]);
    expect(
      await sendWebhook(delivery(`http://127.0.0.1:${receiver.port}/hook`), { allowHosts: [`127.0.0.1:${receiver.port}`] }),
    ).toMatchObject({ status: 200 });
    expect(receiver.hits).toEqual(["/hook"]);
  });

  it("an allowed entry names a host and a valid port, nothing else", () => {
    expect(AllowHostsInput.parse(["Hooks.Internal:8443", "10.0.4.12", "[FD00::5]:8080", "fd00::6"])).toEqual([
      "hooks.internal:8443",
      "10.0.4.12",
      "[fd00::5]:8080",
      "fd00::6",
    ]);
    for (const bad of [
      "hooks.internal:0",
      "hooks.internal:65536",
      "hooks.internal:80x",
      "hooks.internal:",
      "http://hooks.internal",
      "[hooks.internal]:80",
      "a b",
      "hooks..internal",
    ]) {
      expect(AllowHostsInput.safeParse([bad]).success, bad).toBe(false);
    }
  });

  it("this machine's public IPv4 or IPv6 address, or a name resolving there, is refused like loopback", async () => {
    const mine = {
      address: "93.184.216.34",
      family: "IPv4",
      netmask: "255.255.255.0",
      mac: "02:00:00:00:00:01",
      internal: false,
      cidr: "93.184.216.34/24",
    } as os.NetworkInterfaceInfo;
    const mine6 = {
      address: "2a00:1450:4001:81b::200e",
      family: "IPv6",
      netmask: "ffff:ffff:ffff:ffff::",
      mac: "02:00:00:00:00:01",
      internal: false,
      cidr: "2a00:1450:4001:81b::200e/64",
      scopeid: 0,
    } as os.NetworkInterfaceInfo;
    vi.spyOn(os, "networkInterfaces").mockReturnValue({ eth0: [mine, mine6] });
    const lookup = async () => [{ address: "93.184.216.34", family: 4 }];
    for (const url of [
      "http://93.184.216.34:3000/api/health",
      "http://[2a00:1450:4001:81b:0:0:0:200e]:3000/",
      "http://[::ffff:93.184.216.34]:3000/",
      "https://rein-host.example/",
    ]) {
      const result = await sendWebhook(delivery(url), { lookup });
      expect(result, url).toMatchObject({ status: null, refused: true });
      expect(result.error, url).toMatch(/an address of this machine or a private network/);
    }
  });
});
