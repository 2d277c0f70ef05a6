// Limits the server enforces and the browser shows or checks before sending:
// declared once here, imported by both. Browser-safe: no server imports, no
// node: modules (test/architecture.test.ts checks).

/** A run's model calls without an explicit cost ceiling; raising the step limit above it needs one (docs/runs.md#limits). */
export const DEFAULT_CALL_CAP = 50;
/** The highest step limit a run may be given. */
export const MAX_STEPS = 500;
/** A cost ceiling or budget this large is a typo (cents typed as dollars, an extra digit). */
export const MAX_BUDGET_USD = 1_000_000;
/** A run's goal, in characters. */
export const MAX_GOAL_CHARS = 20_000;
/** A person's message to a running agent, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;

/** Tags on one run, and the characters of one tag. */
export const MAX_RUN_TAGS = 10;
export const MAX_TAG_CHARS = 32;

/** An experiment's runs of each item, and runs at once. */
export const MAX_EPOCHS = 10;
export const MAX_CONCURRENCY = 8;

/** A dataset's JSONL file, in bytes. */
export const MAX_JSONL_BYTES = 5 * 1024 * 1024;
/** A workspace file read or saved as text, in bytes. */
export const MAX_TEXT_BYTES = 2_000_000;
