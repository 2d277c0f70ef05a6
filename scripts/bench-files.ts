// npm run bench:files — what opening workspace files only through the run's
// sandboxed file service costs, per operation, against the direct file
// system calls the server made before, measured in the same run.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileServices, jailMode } from "@/server/compute";
import { Workspace } from "@/server/tools";
import { summary } from "./bench-stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 300;
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return samples;
}

function row(name: string, direct: number[], sandboxed: number[]) {
  const d = summary(direct);
  const s = summary(sandboxed);
  console.log(
    `${name.padEnd(26)} direct p50 ${fmt(d.p50)} p99 ${fmt(d.p99)}   sandboxed p50 ${fmt(s.p50)} p99 ${fmt(s.p99)}   +${fmt(s.p50 - d.p50)} at p50`,
  );
}

async function main() {
  const mode = jailMode();
  if (mode.kind !== "bubblewrap") {
    console.error(`bench:files needs bubblewrap (the file sandbox is ${mode.kind}: ${"why" in mode ? mode.why : ""})`);
    process.exit(1);
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-files-"));
  const ws = new Workspace(root);
  const content = crypto.randomBytes(3072).toString("base64").slice(0, 4096);
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(root, `dir${d}`));
    for (let f = 0; f < 25; f++) fs.writeFileSync(path.join(root, `dir${d}`, `file${f}.txt`), content);
  }
  try {
    const starts = await time(10, async () => {
      fileServices.release(root);
      await ws.stat("dir0");
    });
    const s = summary(starts);
    console.log(`file service start (bubblewrap + Node, first request answered): p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)} (n=${s.n})\n`);
    console.log(`${ROUNDS} rounds each; 500 files of 4 kB in 20 folders\n`);

    const abs = (rel: string) => path.join(root, rel);
    row("stat", await time(ROUNDS, () => fsp.stat(abs("dir1/file1.txt"))), await time(ROUNDS, () => ws.stat("dir1/file1.txt")));
    row(
      "read 4 kB",
      await time(ROUNDS, () => fsp.readFile(abs("dir2/file2.txt"))),
      await time(ROUNDS, () => ws.readFile("dir2/file2.txt")),
    );
    row(
      "atomic write 4 kB",
      await time(ROUNDS, async (i) => {
        const tmp = abs(`dir3/.w${i}.tmp`);
        await fsp.writeFile(tmp, content);
        await fsp.rename(tmp, abs("dir3/direct.txt"));
      }),
      await time(ROUNDS, () => ws.writeFile("dir3/sandboxed.txt", content)),
    );
    const walkDirect = async () => {
      const out: string[] = [];
      for (const d of await fsp.readdir(root, { withFileTypes: true })) {
        if (d.isDirectory()) for (const f of await fsp.readdir(path.join(root, d.name))) out.push(`${d.name}/${f}`);
      }
      return out;
    };
    row("list 500 files", await time(Math.ceil(ROUNDS / 5), walkDirect), await time(Math.ceil(ROUNDS / 5), () => ws.walk(".", 100_000)));
    row(
      "tree of 520 entries",
      await time(Math.ceil(ROUNDS / 5), async () => {
        const names = await walkDirect();
        await Promise.all(names.map((n) => fsp.lstat(abs(n))));
      }),
      await time(Math.ceil(ROUNDS / 5), () => ws.tree(5000)),
    );
    const pipelined = summary(await time(20, () => Promise.all(Array.from({ length: 50 }, () => ws.stat("dir1/file1.txt")))));
    console.log(`\n50 stats sent at once: p50 ${fmt(pipelined.p50)} for all 50 (${fmt(pipelined.p50 / 50)} each)`);
  } finally {
    fileServices.stopAll();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
