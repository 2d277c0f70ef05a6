export { ScriptedModel, type ScriptedModelOptions } from "./model";
export { BUILTIN_SCENARIOS, GOAL_SCENARIOS } from "./scenarios";
export { DEMO_CSV_GOAL, CSV_TOOL_NAME, SALES_CSV } from "./demo-csv";
export { DEMO_FIX_GOAL } from "./demo-fix";
export { DEMO_MCP_GOAL } from "./demo-mcp";
export { DEMO_HOSTED_GOAL } from "./demo-hosted";
export { DEMO_LONG_GOAL } from "./demo-long";
export { DEMO_BROWSER_GOAL } from "./demo-browser";
export { DEMO_DEPLOY_GOAL } from "./demo-deploy";
