// The demo site over a real socket: the form, an order, what it refuses, and
// that what a visitor typed comes back escaped.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SHOP_CATALOGUE, handleDemoSite, orderNumber } from "./index";

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer(
    (req, res) =>
      void (async () => {
        if (!(await handleDemoSite(req, res))) {
          res.writeHead(418);
          res.end("not the demo site");
        }
      })(),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const order = (body: string) =>
  fetch(`${base}/demo-site/order`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });

describe("demo site", () => {
  it("serves the order form with its fields, and leaves other paths alone", async () => {
    const res = await fetch(`${base}/demo-site/form`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    // The catalogue the demo-browser agent orders from, by the names it uses.
    for (const item of DEMO_SHOP_CATALOGUE) expect(html).toContain(`<li>${item.name}</li>`);
    for (const id of ['id="name"', 'id="message"', 'id="submit"', 'action="/demo-site/order"']) expect(html).toContain(id);
    expect((await fetch(`${base}/demo-site`)).status).toBe(200);
    expect((await fetch(`${base}/elsewhere`)).status).toBe(418);
    expect((await fetch(`${base}/demo-site/nothing`)).status).toBe(404);
  });

  it("answers an order with its number, the name and message escaped, and a confirm button", async () => {
    const res = await order(new URLSearchParams({ name: "Ada <b>Lovelace</b>", message: `Two "stickers" & a pin` }).toString());
    expect(res.status).toBe(200);
    const html = await res.text();
    const number = orderNumber("Ada <b>Lovelace</b>", `Two "stickers" & a pin`);
    expect(number).toMatch(/^RN-[0-9A-F]{6}$/);
    expect(html).toContain(`Order ${number} received`);
    expect(html).toContain("Ada &lt;b&gt;Lovelace&lt;/b&gt;");
    expect(html).toContain("Two &quot;stickers&quot; &amp; a pin");
    expect(html).not.toContain("<b>Lovelace</b>");
    expect(html).toContain('id="confirm"');
  });

  it("refuses an order without a name or message, one too large, and a GET of the order address", async () => {
    expect((await order("name=Ada")).status).toBe(400);
    expect((await order(`name=Ada&message=${"x".repeat(20_000)}`)).status).toBe(413);
    expect((await fetch(`${base}/demo-site/order`)).status).toBe(404);
  });
});
