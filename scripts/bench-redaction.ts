// npm run bench:redaction — what redacting a terminal on what a watcher sees
// costs: keystroke-to-echo in a real pod with no secrets (nothing to redact),
// with a secret given to a command (every chunk redacted), and for a key that
// begins the secret (held back on purpose), then throughput against the
// previous redactor, which matched raw text only. All in one run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_LIMITS, PtyPod, probeSandbox } from "@/server/compute";
import { StreamRedactor, TerminalRedactor } from "@/server/secrets";
import { summary } from "./bench-stats";

const KEYS = Number(process.env.BENCH_ROUNDS) || 200;
const SECRET = { name: "T", value: "dpl-7Hq2zX9vLm4K-s3cr3t-0042" };
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function echo(pod: PtyPod, key: string, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      const off = pod.onData((chunk) => {
        if (chunk.includes(key)) {
          off();
          resolve();
        }
      });
      pod.write(key);
    });
    samples.push(performance.now() - t0);
    pod.write("\u0015"); // Ctrl-U: clear the line for the next key
    await new Promise((r) => setTimeout(r, 5));
  }
  return samples;
}

function line(name: string, samples: number[]) {
  const s = summary(samples);
  console.log(`${name.padEnd(52)} p50 ${fmt(s.p50)}  p99 ${fmt(s.p99)}  (n=${s.n})`);
}

async function main() {
  if (!probeSandbox().ok) throw new Error("bench:redaction needs bubblewrap");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-redaction-"));
  const plain = await PtyPod.start({ workspaceDir: dir, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
  const given = await PtyPod.start({ workspaceDir: dir, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
  try {
    await given.exec("true", { timeoutMs: 5000, env: { T: SECRET.value } });
    console.log("keystroke to echo in a real pod (bubblewrap, PTY):");
    line("no secret given (nothing to redact)", await echo(plain, "q", KEYS));
    line("a secret given (every chunk redacted on what it shows)", await echo(given, "q", KEYS));
    line("a key that begins the secret (held back on purpose)", await echo(given, "d", Math.min(KEYS, 20)));

    const chunk = "\u001b[32mok\u001b[0m build step passed; artifacts written to out/ ".repeat(1000);
    const total = 20 * 1024 * 1024;
    for (const [name, make] of [
      ["raw-text redactor (before)", () => new StreamRedactor([SECRET])],
      ["terminal redactor (now)", () => new TerminalRedactor([SECRET])],
    ] as const) {
      const r = make();
      const t0 = performance.now();
      let done = 0;
      while (done < total) {
        r.push(chunk);
        done += chunk.length;
      }
      const s = (performance.now() - t0) / 1000;
      console.log(`${name.padEnd(52)} ${(done / 1e6 / s).toFixed(1)} MB/s of coloured output`);
    }
  } finally {
    await plain.dispose();
    await given.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
