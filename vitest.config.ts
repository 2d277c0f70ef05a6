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
  "test/demo-browser.test.ts",
  "test/attack/{mcp-server,bad-input,framing,csrf,demoted-admin-sockets}.test.ts",
  "test/attack/desktop-*.test.ts",
  "server/compute/desktop/**/*.test.ts",
  "server/realtime/vnc/**/*.test.ts",
  "server/tools/builtin/browser*.test.ts",
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
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: "two-at-a-time",
          include: INCLUDE,
          exclude: [...EXCLUDE, ...ONE_AT_A_TIME],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
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
