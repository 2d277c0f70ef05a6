// AG-UI 1.0 (docs/ag-ui.md): every run watched and steered by AG-UI clients,
// over REST v1's routes and tokens. Other code imports only this file.
export { AG_UI_ROUTES } from "./routes";
export { HEARTBEAT_MS } from "./stream";
export { MAX_AG_UI_BODY, MAX_AG_UI_MESSAGES, MAX_RESUME_ENTRIES } from "./input";
export { MAX_RESULT_CHARS } from "./mapper";
