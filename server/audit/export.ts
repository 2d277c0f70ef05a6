// Audit exports: every entry the filter matches, newest first, as CSV (RFC 4180)
// or JSON.
import { DomainError } from "@/server/errors";
import { auditPage, parseAuditFilter, type AuditDb } from "./log";
import type { AuditExportFormat, AuditFilter, AuditRecord } from "./types";

export const MAX_EXPORT_ROWS = 100_000;
const PAGE = 1000;

export class AuditExportTooLargeError extends DomainError {
  constructor() {
    super(
      "PAYLOAD_TOO_LARGE",
      `More than ${MAX_EXPORT_ROWS.toLocaleString("en-US")} audit entries match; narrow the filter (a date range) and export again`,
    );
    this.name = "AuditExportTooLargeError";
  }
}

const CSV_COLUMNS = [
  "id",
  "at",
  "kind",
  "actorId",
  "actorName",
  "onBehalfOf",
  "channel",
  "runId",
  "teamId",
  "requestId",
  "subject",
  "fromState",
  "toState",
  "detail",
] as const satisfies ReadonlyArray<keyof AuditRecord>;

/**
 * One CSV field. Quoted when it holds a quote, comma or line break; a leading
 * =, +, -, @, tab or CR gets a ' so spreadsheets do not run it as a formula
 * (audit rows carry text agents and users wrote).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvValue(entry: AuditRecord, column: (typeof CSV_COLUMNS)[number]): string {
  const v = entry[column];
  if (v === null) return "";
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function toCsv(entries: AuditRecord[]): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const e of entries) lines.push(CSV_COLUMNS.map((c) => csvField(csvValue(e, c))).join(","));
  return lines.join("\r\n") + "\r\n";
}

export async function exportAudit(db: AuditDb, filter: AuditFilter, format: AuditExportFormat): Promise<string> {
  const f = parseAuditFilter({ ...filter, cursor: undefined });
  const all: AuditRecord[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await auditPage(db, { ...f, cursor }, PAGE);
    all.push(...page.entries);
    if (all.length > MAX_EXPORT_ROWS) throw new AuditExportTooLargeError();
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  if (format === "json")
    return (
      JSON.stringify(
        all.map((e) => ({ ...e, at: e.at.toISOString() })),
        null,
        2,
      ) + "\n"
    );
  return toCsv(all);
}
