// Channels (L4, docs/channels.md): the REST API and the MCP server for
// programs; signed webhooks, Slack and e-mail for people and their systems,
// all fed by the outbox the run stores write with the events.
export { ALL_ROUTES, OPENAPI, OPENAPI_PATH, createRestHandler, type Route } from "./rest";
export { MAX_JSON_DEPTH, jsonInputProblem, wellFormed } from "./rest/input";
export { MAX_MCP_BODY, MCP_PATH, MCP_TOOLS, createMcpHandler, isMcpPath, type McpHandlerDeps } from "./mcp";
export {
  AllowHostsInput,
  RESPONSE_BODY_BYTES,
  DELIVERY_TIMEOUT_MS,
  RETRY_SCHEDULE_MS,
  ROTATION_OVERLAP_MS,
  TEST_EVENT_TYPE,
  Webhooks,
  sendWebhook,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  newWebhookSecret,
  afterAttempt,
  type SendResult,
  type AttemptVerdict,
  type WebhookEndpointView,
  type WebhookDeliveryView,
  type WebhookAttemptView,
} from "./webhooks";
export { ChannelDispatcher, type OutboxListener, type OutboxMessageView } from "./dispatcher";
export { ChannelError, CHANNEL_ERROR_STATUS, type ChannelErrorCode } from "./errors";
export { ROUTING_SETTING, RoutingInput, readRouting, saveRouting, recipientsFor, recordNotified, type Routing, type Recipient, type RequestForRouting } from "./notify";
export {
  EMAIL_SETTING,
  SMTP_SECURITY,
  EmailSettingsInput,
  readEmailSettings,
  saveEmailSettings,
  EmailChannel,
  mailTarget,
  sendTestMail,
  MAIL_PREFERENCES,
  MailPreferenceInput,
  mailPreference,
  setMailPreference,
  wantsMail,
  buildRequestMail,
  describeSmtpError,
  type EmailSettings,
  type SmtpSecurity,
  type EmailChannelDeps,
  type TestMailResult,
  type MailPreference,
} from "./email";
export {
  SLACK_SETTING,
  SLACK_ACTIONS_PATH,
  MAX_SLACK_BODY,
  SlackSettingsInput,
  SlackMappingInput,
  SlackChannel,
  createSlackActionsHandler,
  readSlackSettings,
  slackSettingsView,
  saveSlackSettings,
  testSlackConnection,
  listSlackUsers,
  setSlackMapping,
  syncSlackUsers,
  type SlackSettings,
  type SlackSettingsView,
  type SlackChannelDeps,
  type SlackActionsDeps,
  type SlackActionsHandler,
  type SlackConnectionResult,
  type SlackUserView,
} from "./slack";
