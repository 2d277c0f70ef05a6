// The model catalog: providers, models, routing rules and sensitivity pools.
export { ModelCatalog, emptySnapshot, type CatalogSnapshot, type CatalogProvider } from "./catalog";
export {
  route,
  poolMembers,
  RoutingError,
  DEFAULT_COMPLEXITY,
  type RoutingDecision,
  type RouteRequest,
  type RoutingSnapshot,
} from "./routing";
export { getRouting, setRouting, SETTING_ROUTING } from "./routing-store";
export {
  listProviders,
  getProvider,
  providerCredentials,
  createProvider,
  updateProvider,
  deleteProvider,
  listModels,
  saveModel,
  deleteModel,
  keySecretName,
  ProviderInput,
  ProviderUpdate,
  ModelInput,
  type CatalogActor,
} from "./store";
export {
  RoutingConfig,
  RoutingRule,
  SensitivityPool,
  TASK_CLASSES,
  EMPTY_ROUTING,
  CatalogError,
  type ProviderView,
  type ModelView,
  type ModelRef,
  type RoutingConfigInput,
} from "./types";
export {
  ModelAdmin,
  failureWords,
  SaveModelInput,
  TestProviderInput,
  type ModelAdminDeps,
  type ModelOption,
  type TestProviderResult,
} from "./admin";
