// A small web site of Rein's own for the demo-browser agent and its tests:
// an order form, and a result page with a button a person can press from the
// Desktop tab. Served on Rein's port under /demo-site/ without a login (the
// desktop's Chromium has none); it keeps nothing and reads nothing else.
import type { IncomingMessage, ServerResponse } from "node:http";
import crypto from "node:crypto";
import { DEMO_SHOP_CATALOGUE, MAX_ITEM_COUNT } from "./catalogue";

export { DEMO_SHOP_CATALOGUE, MAX_ITEM_COUNT, type CatalogueItem } from "./catalogue";

export const DEMO_SITE_PREFIX = "/demo-site/";
const MAX_BODY = 10_000;

const STYLE = `
  body { font: 18px/1.5 system-ui, sans-serif; margin: 0; padding: 24px 32px; background: #f6f7f9; color: #1c2024; }
  h1 { font-size: 26px; margin: 0 0 12px; }
  label { display: block; margin: 12px 0 4px; font-weight: 600; }
  input, textarea { font: inherit; width: 100%; max-width: 560px; padding: 8px 10px; border: 1px solid #b9bec6; border-radius: 6px; box-sizing: border-box; }
  button { font: inherit; margin-top: 16px; padding: 10px 18px; border: 0; border-radius: 6px; background: #2f5bd3; color: #fff; cursor: pointer; }
  .receipt { background: #fff; border: 1px solid #d8dce2; border-radius: 8px; padding: 12px 16px; max-width: 720px; }
  #confirm { display: block; width: 100%; min-height: 55vh; font-size: 28px; background: #5b6472; }
  body.confirmed #confirm { background: #1f8f4e; }
`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const FORM = page(
  "Sticker order · Rein demo site",
  `<h1>Order stickers</h1>
  <p>Rein's demo site: a form an agent fills in on its desktop.</p>
  <h2 style="font-size: 20px; margin: 16px 0 4px">What we sell</h2>
  <ul id="catalogue">${DEMO_SHOP_CATALOGUE.map((i) => `<li>${escapeHtml(i.name)}</li>`).join("")}</ul>
  <p>Up to ${MAX_ITEM_COUNT} of each, per order.</p>
  <form method="post" action="/demo-site/order">
    <label for="name">Your name</label><input id="name" name="name" required maxlength="200" autocomplete="off">
    <label for="message">What would you like?</label><textarea id="message" name="message" rows="3" required maxlength="2000"></textarea>
    <button id="submit" type="submit">Send order</button>
  </form>`,
);

/** The order's number: the same name and message give the same number. */
export function orderNumber(name: string, message: string): string {
  return `RN-${crypto.createHash("sha256").update(`${name}\n${message}`).digest("hex").slice(0, 6).toUpperCase()}`;
}

function result(name: string, message: string): string {
  const number = orderNumber(name, message);
  return page(
    `Order ${number} · Rein demo site`,
    `<h1>Order ${number} received</h1>
    <div class="receipt"><p id="result">Thank you, <strong>${escapeHtml(name)}</strong>. We received your order ${number}: “${escapeHtml(message)}”.</p>
    <p id="confirmation">Not confirmed by a person yet.</p></div>
    <button id="confirm" type="button">Confirm as a person</button>
    <script>
      document.getElementById("confirm").addEventListener("click", function () {
        document.body.classList.add("confirmed");
        document.getElementById("confirmation").textContent = "Confirmed by a person at " + new Date().toLocaleTimeString("en-GB") + ".";
        this.textContent = "Confirmed";
      });
    </script>`,
  );
}

function send(res: ServerResponse, status: number, html: string) {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'",
  });
  res.end(html);
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let body = "";
    let tooLarge = false;
    req.setEncoding("utf8");
    // Past the limit the rest is read and dropped, so the answer still reaches the sender.
    req.on("data", (chunk: string) => {
      if (tooLarge) return;
      body += chunk;
      tooLarge = body.length > MAX_BODY;
    });
    req.on("end", () => resolve(tooLarge ? null : body));
    req.on("error", reject);
  });
}

/** Answers a request under /demo-site/; returns false for any other path. */
export async function handleDemoSite(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://demo.invalid");
  if (!url.pathname.startsWith(DEMO_SITE_PREFIX) && url.pathname !== "/demo-site") return false;
  const route = url.pathname.replace(/^\/demo-site\/?/, "");
  if ((route === "" || route === "form") && (req.method === "GET" || req.method === "HEAD")) {
    send(res, 200, FORM);
    return true;
  }
  if (route === "order" && req.method === "POST") {
    const body = await readBody(req);
    if (body === null) {
      send(res, 413, page("Too large", "<h1>The order is too large</h1>"));
      return true;
    }
    const form = new URLSearchParams(body);
    const name = (form.get("name") ?? "").trim();
    const message = (form.get("message") ?? "").trim();
    if (!name || !message) {
      send(res, 400, page("Missing fields", `<h1>Name and message are required</h1><p><a href="/demo-site/form">Back to the form</a></p>`));
      return true;
    }
    send(res, 200, result(name.slice(0, 200), message.slice(0, 2000)));
    return true;
  }
  send(res, 404, page("Not found", `<h1>Not found</h1><p><a href="/demo-site/form">The order form</a></p>`));
  return true;
}
