// What scripts/e2e-server.mjs starts the server with; specs log in with these.
export const BASE_URL = "http://localhost:3100";
export const ADMIN_EMAIL = "admin@rein.test";
export const ADMIN_PASSWORD = "rein-e2e-password";
