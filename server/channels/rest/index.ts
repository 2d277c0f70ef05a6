export { ALL_ROUTES, openApi, OPENAPI_PATH, createRestHandler, type Route } from "./v1";
export { defineRoute, type Services as RestServices, type ImproveRuntime } from "./contract";
