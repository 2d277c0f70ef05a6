import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  resolve: {
    // The tsconfig path alias "@/*" -> "./*".
    alias: [{ find: /^@\//, replacement: `${root}/` }],
  },
  test: {
    environment: "node",
    include: ["server/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "lib/**/*.test.ts"],
    exclude: ["e2e/**", "**/node_modules/**", ".next/**", "dist/**"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
