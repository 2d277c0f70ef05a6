// Extensions (SPEC section 10, tier 2): packages an agent proposes, with a
// manifest, CommonJS-style files and their own tests; loaded, tested and
// called only inside the runtime-tool sandbox, never in the server process.
export {
  ExtensionManifest,
  ExtensionPackageError,
  parseExtensionPackage,
  extensionPackage,
  pathProblem,
  testFiles,
  EXTENSION_NAME,
  MAX_FILES,
  MAX_FILE_BYTES,
  MAX_PACKAGE_BYTES,
  type ExtensionPackage,
} from "./package";
export { bundle, type Bundle, type HarnessConfig } from "./bundle";
export { loadExtension, toolSource, hookSource, runBundle, LOAD_LIMITS, type Registered, type RegisteredTool, type LoadResult } from "./load";
export { runExtensionGate, MAX_TESTS, TEST_LIMITS, type GateResult, type ExtensionTestResult } from "./gate";
export { extensionToolDefinitions, type ExtensionToolOptions } from "./definition";
export { CSV_TOOLS_EXTENSION } from "./demo";
export { benchExtensionCall, type ExtensionBench } from "./bench";
export { extensionFromRuntimeTool, extensionNameOf, MAX_USE_TESTS, type RuntimeToolRow, type RecordedUse } from "./promote";
