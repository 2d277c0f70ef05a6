// Where a policy reader thread's code is: the bundled thread beside the
// bundled server (scripts/build.sh), else the TypeScript source through tsx.
// A module of its own, imported only when the first thread starts, because
// `import.meta` cannot be parsed where the policy is loaded as CommonJS (the
// browser tests' runner loads server modules that way).
import fs from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

export interface ThreadEntry {
  url: URL;
  execArgv: string[];
}

export function threadEntry(): ThreadEntry {
  const bundled = new URL("./policy-worker.mjs", import.meta.url);
  if (fs.existsSync(bundled)) return { url: bundled, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { url: new URL("./parse-worker.ts", import.meta.url), execArgv: ["--import", tsx] };
}
