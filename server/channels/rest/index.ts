export { ALL_ROUTES, openApi, OPENAPI_PATH, createRestHandler, type Route } from "./v1";
export { defineRoute } from "./contract";
