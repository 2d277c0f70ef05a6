// audit.*: the audit log for admins: filtered pages and exports.
import { z } from "zod";
import { AUDIT_EXPORT_FORMATS, AuditFilter, exportAudit, listAudit } from "@/server/audit";
import { adminProcedure, router } from "../trpc";

// useInfiniteQuery adds its paging direction to the input.
const ListInput = AuditFilter.extend({ direction: z.enum(["forward", "backward"]).optional() }).default({ limit: 50 });
const ExportInput = z.object({
  filter: AuditFilter.omit({ cursor: true, limit: true }).default({}),
  format: z.enum(AUDIT_EXPORT_FORMATS),
});

const MIME = { csv: "text/csv", json: "application/json" } as const;

export const auditRouter = router({
  list: adminProcedure.input(ListInput).query(({ ctx, input: { direction: _, ...filter } }) => listAudit(ctx.db, filter)),
  export: adminProcedure.input(ExportInput).query(async ({ ctx, input }) => {
    const content = await exportAudit(ctx.db, input.filter, input.format);
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    return { filename: `rein-audit-${stamp}.${input.format}`, mimeType: MIME[input.format], content };
  }),
});
