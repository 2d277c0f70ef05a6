// The audit log: who did what, when, on whose behalf, from which channel
// (docs/human-requests-and-policy.md#audit). Other code imports only this file.
export { recordAudit, listAudit, saveAuditedSetting, type AuditDb } from "./log";
export { auditWriter, type AuditWriter } from "./writer";
export { exportAudit, toCsv, csvField, AuditExportTooLargeError, MAX_EXPORT_ROWS } from "./export";
export { AuditFilter, AUDIT_EXPORT_FORMATS, type AuditInput, type AuditRecord, type AuditPage, type AuditExportFormat } from "./types";
