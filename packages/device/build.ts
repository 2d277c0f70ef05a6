// Builds the device agent into one JavaScript file with no dependencies
// (docs/devices.md#the-agent-package): packages/device/dist/rein-device.js.
// scripts/build.sh packs it as the tarball Rein serves; the tests run it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
export const AGENT_BUNDLE = path.join(here, "dist", "rein-device.js");
/** The file-service program of Rein's pods (server/compute/files/program.ts), bundled into the agent as it is. */
const FILE_SERVICE_SOURCE = path.join(here, "..", "..", "server", "compute", "files", "program.ts");

/** `rein:file-service-program` is the server's program module: one program, run by pods and devices alike. */
const fileServiceProgram: Plugin = {
  name: "rein-file-service-program",
  setup(b) {
    b.onResolve({ filter: /^rein:file-service-program$/ }, () => ({ path: FILE_SERVICE_SOURCE }));
  },
};

export async function buildDeviceAgent(outfile = AGENT_BUNDLE): Promise<string> {
  await build({
    entryPoints: [path.join(here, "src", "main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    // Node's own modules only: anything else would be a dependency the package does not have.
    external: [],
    plugins: [fileServiceProgram],
    banner: { js: "#!/usr/bin/env node" },
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void buildDeviceAgent().then((file) => console.log(`[build] device agent -> ${path.relative(process.cwd(), file)}`));
}
