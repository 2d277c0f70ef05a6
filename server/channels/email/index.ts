// E-mail for human requests (docs/channels.md#e-mail): settings, the channel the
// dispatcher hands outbox messages to, the test mail and each person's choice.
export {
  EMAIL_SETTING,
  SMTP_SECURITY,
  EmailSettingsInput,
  readEmailSettings,
  saveEmailSettings,
  type EmailSettings,
  type SmtpSecurity,
} from "./settings";
export { EmailChannel, mailTarget, type EmailChannelDeps } from "./channel";
export { sendTestMail, type TestMailResult } from "./test-mail";
export { MAIL_PREFERENCES, MailPreferenceInput, mailPreference, setMailPreference, wantsMail, type MailPreference } from "./preference";
export {
  buildRequestMail,
  buildTestMail,
  escapeHtml,
  headerSafe,
  requestMailSubject,
  KIND_WORDS,
  type RequestMail,
  type RequestMailInput,
} from "./message";
export { describeSmtpError, openMailer, MailerError, SMTP_TIMEOUT_MS, type Mailer, type OutgoingMail } from "./transport";
