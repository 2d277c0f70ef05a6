"use client";
// A text field whose value is committed (e.g. into the URL) a moment after
// typing stops, or at once on Enter; a value changed from outside (back,
// "Clear filters") replaces what is typed.
import { useEffect, useRef, useState, type InputHTMLAttributes } from "react";

export function DebouncedInput({
  value,
  onCommit,
  delayMs = 300,
  ...props
}: { value: string; onCommit(v: string): void; delayMs?: number } & Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange">) {
  const [text, setText] = useState(value);
  const pushed = useRef(value);
  useEffect(() => {
    if (value === pushed.current) return;
    pushed.current = value;
    setText(value);
  }, [value]);
  useEffect(() => {
    if (text.trim() === pushed.current) return;
    const timer = setTimeout(() => {
      pushed.current = text.trim();
      onCommit(text);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [text, onCommit, delayMs]);
  return (
    <input
      {...props}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => {
        if (e.key !== "Enter") return;
        pushed.current = text.trim();
        onCommit(text);
      }}
    />
  );
}
