import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

const INCLUDE = ["server/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "lib/**/*.test.ts"];
const EXCLUDE = ["e2e/**", "**/node_modules/**", ".next/**", "dist/**"];

/**
 * The files that start servers, clusters, desktops or browsers as processes of their own. Each of
 * those takes a core while it starts, so they run one at a time, after the rest; everything else
 * runs on two workers (docs/development.md#run-the-tests).
 */
export const ONE_AT_A_TIME = [
  "test/crash.test.ts",
  "test/backup.test.ts",
  "test/downgrade.test.ts",
  "test/upgrade.test.ts",
  "test/*-restart.test.ts",
  "test/cluster*.test.ts",
  "test/cli*.test.ts",
  "test/terminal.test.ts",
  "test/sessions.test.ts",
  "test/people-sessions.test.ts",
  "test/realtime.test.ts",
  "test/mcp-client.test.ts",
  "test/mcp-orphans.test.ts",
  "test/tiers.test.ts",
  "test/t3-server.test.ts",
  "test/demo-browser.test.ts",
  "test/attack/{mcp-server,bad-input,framing,csrf,demoted-admin-sockets,gateway-keys}.test.ts",
  "test/attack/desktop-*.test.ts",
  "server/compute/desktop/**/*.test.ts",
  "server/realtime/vnc/**/*.test.ts",
  "server/tools/builtin/browser*.test.ts",
];

/**
 * The files that change what every other file would see: they replace modules (vi.mock) or set
 * environment variables. They get modules of their own; every other file of the first group shares
 * its worker's modules with the files before it, which saves loading the server's code again for
 * each of them (test/architecture.test.ts keeps this list complete).
 */
export const OWN_MODULES = [
  "test/attack/change-snapshot.test.ts",
  "test/attack/policy-bounds.test.ts",
  "test/db-helper.test.ts",
  "test/sandbox-escape.test.ts",
  "test/attack/extensions.test.ts",
  "test/attack/mcp-client.test.ts",
  "server/improve/extensions/isolation.test.ts",
  "server/improve/repos/isolation.test.ts",
];

const shared: TestProjectInlineConfiguration = {
  extends: true,
  test: { environment: "node", pool: "forks", testTimeout: 60_000, hookTimeout: 60_000 },
};

export default defineConfig({
  resolve: {
    // The tsconfig path alias "@/*" -> "./*".
    alias: [{ find: /^@\//, replacement: `${root}/` }],
  },
  test: {
    globalSetup: ["test/global-setup.ts"],
    // Projects of one group run together and must agree on the number of workers.
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: "shared-modules",
          include: INCLUDE,
          exclude: [...EXCLUDE, ...ONE_AT_A_TIME, ...OWN_MODULES],
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...shared,
        test: { ...shared.test, name: "own-modules", include: OWN_MODULES, exclude: EXCLUDE, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        ...shared,
        test: {
          ...shared.test,
          name: "one-at-a-time",
          include: ONE_AT_A_TIME,
          exclude: EXCLUDE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
