// The JavaScript a first visit to the busiest pages loads, against its budget
// (docs/performance.md#javascript-per-page). Next.js writes each route's
// first-load chunks to .next/diagnostics/route-bundle-stats.json when it builds;
// this prints their size as sent (gzip) for the run page, Runs, Inbox and Costs,
// and the largest pages. With REIN_JS_BUDGET=enforce (npm test sets it) a page
// over its budget fails the build.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const STATS = path.join(".next", "diagnostics", "route-bundle-stats.json");
/** Gzipped kilobytes of first-load JavaScript each page may load. */
const BUDGETS = { "/runs/[id]": 300, "/runs": 230, "/inbox": 245, "/costs": 230 };
const LARGEST = 3;

if (!fs.existsSync(STATS)) {
  console.error(`[build] ${STATS} is missing: this Next.js did not say what each page loads, so the JavaScript budget cannot be checked`);
  process.exit(process.env.REIN_JS_BUDGET === "enforce" ? 1 : 0);
}
const routes = JSON.parse(fs.readFileSync(STATS, "utf8"));
const sizes = new Map();
const gz = (file) => {
  if (!sizes.has(file)) sizes.set(file, zlib.gzipSync(fs.readFileSync(file)).length);
  return sizes.get(file);
};
const kb = (bytes) => Math.round(bytes / 1024);
const rows = routes.map((r) => ({
  route: r.route,
  raw: r.firstLoadUncompressedJsBytes,
  gzip: r.firstLoadChunkPaths.reduce((n, f) => n + gz(f), 0),
}));
const shown = [
  ...Object.keys(BUDGETS).map((route) => rows.find((r) => r.route === route) ?? { route, raw: 0, gzip: 0, missing: true }),
  ...rows
    .filter((r) => !(r.route in BUDGETS))
    .sort((a, b) => b.gzip - a.gzip)
    .slice(0, LARGEST),
];
console.log("[build] first-load JavaScript per page (gzip, as sent; uncompressed in brackets)");
const over = [];
for (const r of shown) {
  const budget = BUDGETS[r.route];
  if (r.missing) {
    over.push(`${r.route}: the build has no such page`);
    continue;
  }
  const verdict = budget === undefined ? "" : kb(r.gzip) > budget ? `  OVER its budget of ${budget} KB` : `  budget ${budget} KB`;
  if (budget !== undefined && kb(r.gzip) > budget) over.push(`${r.route}: ${kb(r.gzip)} KB, budget ${budget} KB`);
  console.log(`[build]   ${r.route.padEnd(28)} ${String(kb(r.gzip)).padStart(5)} KB  (${kb(r.raw)} KB)${verdict}`);
}
if (over.length) {
  console.error(`[build] first-load JavaScript over budget: ${over.join("; ")}. See docs/performance.md#javascript-per-page.`);
  if (process.env.REIN_JS_BUDGET === "enforce") process.exit(1);
}
