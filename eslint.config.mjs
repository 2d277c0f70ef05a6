// `npm run lint`: the few rules that catch real bugs the type checker lets
// through, not a style guide (Prettier owns the layout). Why each rule is here:
// docs/development.md#lint-and-format.
import { defineConfig } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

/** The code the type-aware rules read: everything tsconfig.json compiles except the tools' own config files. */
const TYPED = ["{app,components,lib,server,scripts,test,e2e}/**/*.{ts,tsx}", "server.ts"];

export default defineConfig(
  {
    ignores: [
      ".next/**",
      ".rein/**",
      "data/**",
      "dist/**",
      "playwright-report/**",
      "test-results/**",
      "server/db/generated/**",
      "server/db/generated-pg/**",
      "next-env.d.ts",
      "**/*.generated.ts",
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { parser: tseslint.parser },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      // Types are erased by the bundlers one file at a time (isolatedModules); an import that is
      // only a type says so, and a server module never reaches the browser for a type.
      "@typescript-eslint/consistent-type-imports": [
        "error",
        // `typeof import("monaco-editor")` types a module that is loaded lazily; it is erased too.
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: TYPED,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection: the process logs an unhandled rejection,
      // or worse, the code after it runs before the write it depends on.
      "@typescript-eslint/no-floating-promises": "error",
      // An async function where a void callback is expected (an EventEmitter listener, a
      // timer) has the same problem, one call removed. React discards what an event handler
      // returns, and the pages' handlers are `() => query.refetch()` (which never rejects) or
      // mutations that show their own error, so JSX attributes are not checked.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      // A new run state, event kind or role must be handled wherever the old ones are.
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    files: ["{app,components}/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    // The plain scripts have no type checker behind them; their disable comments name this core rule.
    files: ["**/*.mjs"],
    rules: { "no-control-regex": "error" },
  },
);
