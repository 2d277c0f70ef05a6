// Hosted agents (docs/hosted-agents.md): programs such as Claude Code or Codex
// run inside a run's sandbox and are driven over the Agent Client Protocol,
// with their model calls through Rein's gateway.
export { HostedRuns, hostedToolName, policyView, type HostedDeps, type RunGateway, type GatewayRun } from "./driver";
export {
  AcpHost,
  AgentExitedError,
  workspacePath,
  commandLine,
  sliceLines,
  MAX_MESSAGE_BYTES,
  MAX_TERMINALS,
  type HostIO,
} from "./acp-host";
export { hostedProgram, hostedPrograms, registerHostedProgram, TEST_AGENT, type HostedProgram, type GatewayEndpoint } from "./programs";
export { startAgentProcess, runFolders, GATEWAY_PORT } from "./sandbox";
export { installProgram, installedPackage, packageFolder, programsDir, ProgramInstallError, type ProgramPackage } from "./install";
export {
  HostedPrograms,
  PROTOCOL_NAMES,
  TEST_TIMEOUT_MS,
  type HostedProgramsDeps,
  type HostedProgramView,
  type HostedProgramTest,
  type InstallView,
  type InstallState,
} from "./service";
