// Memory that outlives a run (issue "Memory"): what a memory is, as the
// store, the tools, the pages and the kernel see it.
import { DomainError } from "@/server/errors";
import { z } from "zod";

export const MEMORY_KINDS = ["fact", "procedure", "preference", "episode"] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** agent: only runs of the agent that saved it; team: every agent of its team. */
export const MEMORY_SCOPES = ["agent", "team"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/**
 * agent: an agent chose to keep it; scenario: a run playing its launcher's
 * script saved it, so a person wrote the text. Other runs load scenario
 * memories only where the team allows it (docs/memory.md#scenario-memories).
 */
export const MEMORY_ORIGINS = ["agent", "scenario"] as const;
export type MemoryOrigin = (typeof MEMORY_ORIGINS)[number];

/** pending: waits for a person's "keep" (memoryConfirm) and does not count; rejected: discarded. */
export const MEMORY_STATES = ["active", "pending", "rejected"] as const;
export type MemoryState = (typeof MEMORY_STATES)[number];

export const MAX_MEMORY_TEXT = 2_000;
export const MAX_MEMORY_TITLE = 200;
/** Longer search text is cut here before it becomes terms. */
export const MAX_QUERY_CHARS = 1_000;

export interface MemoryView {
  id: string;
  scope: MemoryScope;
  agentName: string;
  teamId: string | null;
  ownerId: string | null;
  kind: MemoryKind;
  title: string;
  text: string;
  state: MemoryState;
  pinned: boolean;
  sourceRunId: string | null;
  requestId: string | null;
  createdBy: string;
  origin: MemoryOrigin;
  decidedById: string | null;
  decidedAt: Date | null;
  uses: number;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A memory the prompt loader put into a run's system prompt (the run page lists them). */
export interface LoadedMemory {
  id: string;
  title: string;
  kind: MemoryKind;
  scope: MemoryScope;
  origin: MemoryOrigin;
  tokens: number;
}

/** Where a run's memories come from: its agent, its team, and (team-less runs) who launched it. */
export interface MemoryRunScope {
  agentName: string;
  teamId: string | null;
  /** The run's launcher: the only person whose team-less memories a team-less run sees. */
  ownerId?: string | null;
  /** The run itself: it always sees the scenario memories it saved. */
  runId?: string | null;
  /** Its team lets scenario memories load into other runs (read from the team's setting when not given). */
  scenarioShared?: boolean;
}

export type MemoryErrorCode = "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT";

export class MemoryError extends DomainError {
  constructor(code: MemoryErrorCode, message: string) {
    super(code, message);
    this.name = "MemoryError";
  }
}

export const ListMemoriesInput = z
  .object({
    q: z
      .string()
      .max(MAX_QUERY_CHARS * 4)
      .optional(),
    agent: z.string().max(100).optional(),
    kind: z.enum(MEMORY_KINDS).optional(),
    state: z.enum(MEMORY_STATES).optional(),
    scope: z.enum(MEMORY_SCOPES).optional(),
    teamId: z.string().max(100).optional(),
    pinned: z.boolean().optional(),
    limit: z.number().int().min(1).max(200).optional(),
    cursor: z.string().max(100).optional(),
  })
  .strict();
export type ListMemoriesInput = z.infer<typeof ListMemoriesInput>;

export const UpdateMemoryInput = z
  .object({
    title: z.string().trim().min(1, "a title needs at least one character").max(MAX_MEMORY_TITLE).optional(),
    text: z
      .string()
      .trim()
      .min(1, "the text cannot be empty")
      .max(MAX_MEMORY_TEXT, `a memory is at most ${MAX_MEMORY_TEXT} characters`)
      .optional(),
    kind: z.enum(MEMORY_KINDS).optional(),
    pinned: z.boolean().optional(),
  })
  .strict();
export type UpdateMemoryInput = z.infer<typeof UpdateMemoryInput>;
