"use client";
// Runs with one tag: typed and applied with Enter or on leaving the field; a bad tag is named under it.
import styles from "./runs-table.module.css";
import { useEffect, useState } from "react";
import { FieldError } from "@/components/ui";

export function RunTagFilter({ tag, error, onChange }: { tag: string; error: string | null; onChange(tag: string): void }) {
  const [text, setText] = useState(tag);
  useEffect(() => setText(tag), [tag]);
  const apply = () => {
    if (text.trim() !== tag) onChange(text.trim());
  };
  return (
    <label className={styles.rangeField}>
      <span className="sr-only">Tag</span>
      <input
        type="search"
        className={`input ${styles.tagInput}`}
        placeholder="Tag…"
        value={text}
        aria-invalid={!!error}
        aria-describedby={error ? "runs-tag-error" : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => {
          if (e.key === "Enter") apply();
        }}
        data-testid="runs-tag-filter"
      />
      <FieldError id="runs-tag-error" message={error} testId="runs-tag-error" />
    </label>
  );
}
