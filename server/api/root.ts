import { router, createCallerFactory } from "./trpc";
import { runsRouter } from "./routers/runs";
import { agentsRouter } from "./routers/agents";
import { identityRouter } from "./routers/identity";
import { usersRouter } from "./routers/users";
import { systemRouter } from "./routers/system";
import { filesRouter } from "./routers/files";

export const appRouter = router({
  runs: runsRouter,
  agents: agentsRouter,
  identity: identityRouter,
  users: usersRouter,
  system: systemRouter,
  files: filesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
