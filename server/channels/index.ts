// Channels (L4): the REST API for programs. Webhooks and Slack come later.
export { ALL_ROUTES, OPENAPI, OPENAPI_PATH, createRestHandler, type Route } from "./rest";
export { MAX_JSON_DEPTH, jsonInputProblem, wellFormed } from "./rest/input";
