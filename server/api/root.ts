import { router, createCallerFactory } from "./trpc";
import { runsRouter } from "./routers/runs";
import { agentsRouter } from "./routers/agents";
import { identityRouter } from "./routers/identity";
import { usersRouter } from "./routers/users";
import { systemRouter } from "./routers/system";
import { filesRouter } from "./routers/files";
import { policyRouter } from "./routers/policy";
import { auditRouter } from "./routers/audit";
import { humanRequestsRouter } from "./routers/human-requests";
import { tracesRouter } from "./routers/traces";
import { pricesRouter } from "./routers/prices";
import { costsRouter } from "./routers/costs";
import { telemetrySettingsRouter } from "./routers/telemetry-settings";
import { dataRouter } from "./routers/data";
import { budgetsRouter } from "./routers/budgets";
import { modelsRouter } from "./routers/models";
import { tiersRouter } from "./routers/tiers";
import { secretsRouter } from "./routers/secrets";
import { teamsRouter } from "./routers/teams";
import { invitationsRouter } from "./routers/invitations";
import { evalsRouter } from "./routers/evals";
import { improvementsRouter } from "./routers/improvements";
import { skillsRouter } from "./routers/skills";
import { changesRouter, repositoriesRouter } from "./routers/repositories";
import { extensionsRouter } from "./routers/extensions";
import { mcpRouter } from "./routers/mcp";
import { hostedRouter } from "./routers/hosted";
import { channelsRouter, webhooksRouter } from "./routers/webhooks";
import { emailRouter } from "./routers/channels-email";
import { slackRouter } from "./routers/channels-slack";
import { memoriesRouter } from "./routers/memories";
import { gatewayKeysRouter } from "./routers/gateway-keys";
import { devicesRouter } from "./routers/devices";
import { machinesRouter } from "./routers/machines";

export const appRouter = router({
  runs: runsRouter,
  agents: agentsRouter,
  identity: identityRouter,
  users: usersRouter,
  system: systemRouter,
  files: filesRouter,
  policy: policyRouter,
  audit: auditRouter,
  humanRequests: humanRequestsRouter,
  traces: tracesRouter,
  prices: pricesRouter,
  costs: costsRouter,
  telemetrySettings: telemetrySettingsRouter,
  data: dataRouter,
  budgets: budgetsRouter,
  models: modelsRouter,
  tiers: tiersRouter,
  secrets: secretsRouter,
  teams: teamsRouter,
  invitations: invitationsRouter,
  evals: evalsRouter,
  improvements: improvementsRouter,
  skills: skillsRouter,
  repositories: repositoriesRouter,
  changes: changesRouter,
  webhooks: webhooksRouter,
  channels: channelsRouter,
  extensions: extensionsRouter,
  mcp: mcpRouter,
  hosted: hostedRouter,
  email: emailRouter,
  slack: slackRouter,
  memories: memoriesRouter,
  gatewayKeys: gatewayKeysRouter,
  devices: devicesRouter,
  machines: machinesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
