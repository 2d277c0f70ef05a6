export { ALL_ROUTES, OPENAPI_PATH, createRestHandler, type Route } from "./v1";
export { OPENAPI } from "./openapi";
