// The model gateway (docs/gateway.md): OpenAI's and Anthropic's APIs for hosted
// agents, served by Rein's router under the run's cap and budgets, and for a
// team's own programs with a team gateway key (docs/gateway.md#team-keys).
export { ModelGateway, GATEWAY_ROUTES, MAX_IN_FLIGHT } from "./gateway";
export type { GatewayRun, GatewayDeps, GatewayLimits, GatewayLog, Protocol } from "./types";
export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./http";
export { MAX_MESSAGES, MAX_TOOLS, MAX_PARTS } from "./prompt";
export { GATEWAY_MODEL_ALIAS } from "./models-list";
export { TOKEN_PREFIX } from "./tokens";
export { REFUSALS, type RefusalKind } from "./errors";
export { TeamKeyGateway, KEY_PREFIX, GATEWAY_PATH, DEFAULT_KEY_MODEL, type TeamKeyDeps } from "./team-keys";
/** The synthetic run and workflow id of a key's calls in spans and CostRollup: stable, not a renamable name. */
export { keyWorkflowId } from "@/server/telemetry";
export {
  CreateGatewayKeyInput,
  ListGatewayKeysInput,
  GatewayKeyRef,
  createGatewayKey,
  listGatewayKeys,
  revokeGatewayKey,
  type GatewayKeyView,
  type GatewayKeyState,
  type CreatedGatewayKey,
  type KeyActing,
} from "./keys";
