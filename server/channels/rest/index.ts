export { createRestHandler } from "./v1";
export { OPENAPI } from "./openapi";
