// Rein as an A2A server (docs/a2a.md): signed agent cards for the agents an
// admin exposed, and their tasks served as runs, with API tokens. Other code
// imports only this file.
export { MAX_A2A_BODY, createA2aHandler, isA2aPath, type A2aHandlerOptions } from "./handler";
export { A2A_PROTOCOL, JWKS_PATH, WELL_KNOWN_CARD_PATH, agentCardUrl, agentUrl } from "./card";
export {
  A2A_EXPOSURE_SETTING,
  MAX_EXPOSED_AGENTS,
  ExposeInput,
  exposeAgent,
  unexposeAgent,
  listExposed,
  type ExposedAgent,
} from "./exposure";
export { A2A_SIGNING_KEY_SETTING } from "./signing";
export { TASK_STATE_OF, taskStateOf } from "./task-view";
export { BLOCKING_WAIT_MS, MAX_MESSAGE_TEXT, MAX_PARTS, STREAM_MS } from "./tasks";
export {
  A2A_REMOTES_SETTING,
  MAX_REMOTE_AGENTS,
  RemoteAgentInput,
  listRemoteAgents,
  saveRemoteAgent,
  removeRemoteAgent,
  type RemoteAgent,
} from "./remote-agents";
export { REMOTE_AGENT_TOOL, REMOTE_CALL_MS, remoteAgentTool, type RemoteToolDeps } from "./remote-tool";
