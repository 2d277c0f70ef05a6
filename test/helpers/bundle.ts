// The server's entries bundled as scripts/build.sh bundles them into dist/ (ESM for Node, packages left
// to node_modules): for the test setup's server (test/global-setup.ts) and an earlier commit's server
// (scripts/make-upgrade-fixture.ts).
import { build } from "esbuild";

/** Bundles `entryPoints` (name → source, relative to `root`) into `outdir` as NAME.mjs. */
export async function bundleServerEntries(root: string, outdir: string, entryPoints: Record<string, string>): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    target: "node22",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
}
