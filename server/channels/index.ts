// Channels (L4): the REST API for programs. Webhooks and Slack come later.
export { createRestHandler, OPENAPI } from "./rest";
export { MAX_JSON_DEPTH, jsonInputProblem, wellFormed } from "./rest/input";
