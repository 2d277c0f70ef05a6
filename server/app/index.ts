// The composition root (docs/architecture.md#composition-root): the one
// Services object every transport serves from, and the function that builds it.
export type { ImproveRuntime, Services, SystemInfo } from "./services";
export { seedDatabase, type SeedOptions } from "./seed";
export { composeServices, loopbackHost, openDatabase, type App, type Log, type Started } from "./compose";
export { readVitals, startVitals, stopVitals, type LoopDelay, type Vitals } from "./vitals";
