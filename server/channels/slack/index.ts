// Slack (docs/channels.md#slack, issue 19): human requests posted with buttons to
// each team's channel, escalations by direct message, clicks decided through
// the broker, and every copy updated when a request closes.
export {
  SLACK_SETTING,
  SlackSettingsInput,
  DEFAULT_SLACK_SETTINGS,
  readSlackSettings,
  saveSlackSettings,
  slackSettingsView,
  channelForTeam,
  type SlackSettings,
  type SlackSettingsView,
} from "./settings";
export { SLACK_API_URL, describeSlackError, type SlackDeps } from "./client";
export { testSlackConnection, type SlackConnectionResult } from "./connection";
export { SlackMappingInput, listSlackUsers, setSlackMapping, syncSlackUsers, type SlackUserView } from "./users";
export { SlackChannel, type SlackChannelDeps } from "./channel";
export { SLACK_ACTIONS_PATH, MAX_SLACK_BODY, createSlackActionsHandler, type SlackActionsDeps, type SlackActionsHandler } from "./actions";
export { SLACK_MAX_SKEW_SEC, verifySlackSignature } from "./signature";
export {
  openMessage,
  closedMessage,
  outcomeLine,
  escapeMrkdwn,
  parseAction,
  actionId,
  MAX_OPTION_BUTTONS,
  type SlackMessage,
  type SlackBlock,
} from "./blocks";
