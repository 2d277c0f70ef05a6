// The approve request an extension waiting for approval opens in the Inbox
// (docs/extensions.md): carried by the run that proposed it, for admins
// only, never to be decided by the person who launched that run. A package a
// person proposed has no run to carry a request: it is approved on its page.
import type { Db } from "@/server/db";
import { DEFAULT_LADDER, createRequest, type RequestChange, type TtlLadder } from "@/server/hitl";
import type { GateResult } from "./gate";
import type { ExtensionPackage } from "./package";

/** The request slot of an approval in the inbox. */
export const EXTENSION_SLOT = "extension" as const;

export interface ApprovalDeps {
  db: Db;
  onRequestCreated?: (change: RequestChange) => void;
  ladder?: TtlLadder;
  now(): Date;
}

export async function askApproval(deps: ApprovalDeps, id: string, pkg: ExtensionPackage, gate: GateResult): Promise<void> {
  const row = await deps.db.extension.findUniqueOrThrow({ where: { id }, select: { authorRunId: true, createdById: true } });
  const author = row.authorRunId
    ? await deps.db.run.findUnique({ where: { id: row.authorRunId }, select: { id: true, teamId: true, createdById: true } })
    : null;
  if (!author) return;
  const { name, version, capabilities, tools = [], hooks = [] } = pkg.manifest;
  const { row: request, created } = await createRequest(
    deps.db,
    {
      runId: author.id,
      nodeId: `extension:${id}`,
      checkpointId: "",
      slot: EXTENSION_SLOT,
      kind: "approve",
      title: `Install the extension ${name} v${version}?`,
      detail:
        `${pkg.manifest.description}\n\nTools: ${tools.join(", ") || "none"}. Hooks: ${hooks.join(", ") || "none"}. ` +
        `Capabilities: ${capabilities.join(", ") || "none"}. Its gate: ${gate.summary} Approving installs it for every agent.`,
      payload: {
        tool: "install_extension",
        args: { extensionId: id, name, version, capabilities },
        rule: "extensions require approval",
        notByRequester: true,
      },
      requiredRole: "admin",
      teamId: null,
      requestedById: row.createdById ?? author.createdById,
      ttlSec: 7 * 24 * 3600,
    },
    deps.ladder ?? DEFAULT_LADDER,
    deps.now(),
  );
  if (created) deps.onRequestCreated?.({ requestId: request.id, runId: author.id, state: request.state, teamId: request.teamId });
}
