"use client";
// Text fields of the rule form. Each keystroke is written to the YAML at once
// (the preview and the YAML view follow), but while the field has focus it
// shows what the person typed: "shell, " or a name being cleared is not
// replaced by what the YAML reads back.
import { useState, type InputHTMLAttributes } from "react";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange" | "onFocus" | "onBlur">;

export function CommitInput({ value, commit, ...rest }: { value: string; commit(text: string): void } & InputProps) {
  const [typed, setTyped] = useState<string | null>(null);
  return (
    <input
      className="input"
      spellCheck={false}
      {...rest}
      value={typed ?? value}
      onFocus={() => setTyped(value)}
      onBlur={() => setTyped(null)}
      onChange={(e) => {
        setTyped(e.target.value);
        commit(e.target.value);
      }}
    />
  );
}

export const splitList = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A list of names as one field, separated by commas. */
export function ListInput({ values, onChange, ...rest }: { values: string[]; onChange(values: string[]): void } & InputProps) {
  return (
    <CommitInput
      {...rest}
      value={values.join(", ")}
      commit={(text) => {
        const next = splitList(text);
        if (!same(next, values)) onChange(next);
      }}
    />
  );
}
