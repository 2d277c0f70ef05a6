// Extensions (docs/extensions.md): packages an agent proposes, with a
// manifest, CommonJS-style files and their own tests; loaded, tested and
// called only inside the runtime-tool sandbox, never in the server process.
export {
  ExtensionManifest,
  ExtensionPackageError,
  parseExtensionPackage,
  extensionPackage,
  pathProblem as extensionPathProblem,
  testFiles as extensionTestFiles,
  EXTENSION_NAME,
  MAX_FILES as EXTENSION_MAX_FILES,
  MAX_FILE_BYTES as EXTENSION_MAX_FILE_BYTES,
  MAX_PACKAGE_BYTES as EXTENSION_MAX_PACKAGE_BYTES,
  type ExtensionPackage,
} from "./package";
export { bundle as bundleExtension, type Bundle as ExtensionBundle, type HarnessConfig as ExtensionHarnessConfig } from "./bundle";
export {
  loadExtension,
  toolSource as extensionToolSource,
  hookSource as extensionHookSource,
  runBundle as runExtensionBundle,
  LOAD_LIMITS as EXTENSION_LOAD_LIMITS,
  type Registered as RegisteredExtension,
  type RegisteredTool as RegisteredExtensionTool,
  type LoadResult as ExtensionLoadResult,
} from "./load";
export {
  runExtensionGate,
  MAX_TESTS as EXTENSION_MAX_TESTS,
  TEST_LIMITS as EXTENSION_TEST_LIMITS,
  type GateResult,
  type ExtensionTestResult,
} from "./gate";
export { extensionToolDefinitions, type ExtensionToolOptions } from "./definition";
export { CSV_TOOLS_EXTENSION } from "./demo";
export { benchExtensionCall, type ExtensionBench } from "./bench";
export {
  extensionFromRuntimeTool,
  extensionNameOf,
  MAX_USE_TESTS as EXTENSION_MAX_USE_TESTS,
  type RuntimeToolRow as PromotedRuntimeTool,
  type RecordedUse as RecordedToolUse,
} from "./promote";
export {
  ExtensionRegistry,
  ExtensionError,
  EXTENSION_ACTION_ROLE,
  REGISTRY_SELECT as EXTENSION_REGISTRY_SELECT,
  packageOf as extensionPackageOf,
  type ExtensionAction,
  type ExtensionActor,
  type ExtensionRegistryDeps,
  type InstalledExtension,
} from "./registry";
export { EXTENSION_SLOT } from "./approval";
export { EXTENSION_STATES, isExtensionState, canExtensionGo, compareVersions, type ExtensionState } from "./states";
export {
  HookDispatcher,
  HOOK_EVENT as EXTENSION_HOOK_EVENT,
  HOOK_CONCURRENCY as EXTENSION_HOOK_CONCURRENCY,
  type HookDispatcherDeps,
} from "./hooks";
export { proposeExtensionTool } from "./tool";
export { recordedUses as recordedToolUses } from "./uses";
export {
  listExtensions,
  getExtension,
  ListExtensionsInput,
  type ExtensionSummary,
  type ExtensionDetail,
  type ExtensionTests,
} from "./views";
