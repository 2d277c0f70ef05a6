// Tags on runs: short lowercase labels set at launch or later by the run's team's operators.
import { z } from "zod";
import { MAX_RUN_TAGS, MAX_TAG_CHARS } from "@/lib/limits";

export { MAX_RUN_TAGS, MAX_TAG_CHARS };

/** One tag: 1–32 characters of a-z, 0-9, "-", "_", "." or ":" (upper case is folded to lower). */
export const TagSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, "a tag is empty")
  .max(MAX_TAG_CHARS, `a tag is at most ${MAX_TAG_CHARS} characters`)
  .regex(/^[a-z0-9._:-]+$/, "a tag may hold only letters, digits and - _ . :");

/** A run's tags, without repeats. */
export const TagsSchema = z
  .array(TagSchema)
  .max(MAX_RUN_TAGS, `a run has at most ${MAX_RUN_TAGS} tags`)
  .transform((tags) => [...new Set(tags)]);

/** Nested-create data for a new run's tags. */
export function tagRows(tags: string[] | undefined) {
  return tags?.length ? { tags: { create: tags.map((tag) => ({ tag })) } } : {};
}
