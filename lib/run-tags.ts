// Tags as a person types them in the browser ("bug, nightly eval"), checked by
// the same rules the server applies (server/kernel/run-tags.ts) so a bad tag
// is named under its field before anything is sent.
import { MAX_RUN_TAGS, MAX_TAG_CHARS } from "@/lib/limits";

export { MAX_RUN_TAGS, MAX_TAG_CHARS };
const TAG = /^[a-z0-9._:-]+$/;

/** Splits on commas and spaces, lowercases, drops repeats. */
export function splitTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,]+/)
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** Why this tag is refused, or null when it is fine. */
export function tagProblem(tag: string): string | null {
  if (tag.length > MAX_TAG_CHARS) return `"${tag.slice(0, 12)}…" is longer than ${MAX_TAG_CHARS} characters`;
  if (!TAG.test(tag)) return `"${tag}" may hold only letters, digits and - _ . :`;
  return null;
}

/** The tags in `text`, or the first reason they cannot be used. */
export function parseTags(text: string): { tags: string[]; error: string | null } {
  const tags = splitTags(text);
  if (tags.length > MAX_RUN_TAGS) return { tags, error: `A run has at most ${MAX_RUN_TAGS} tags; this is ${tags.length}` };
  for (const t of tags) {
    const problem = tagProblem(t);
    if (problem) return { tags, error: problem };
  }
  return { tags, error: null };
}
