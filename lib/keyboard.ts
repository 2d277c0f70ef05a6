// Single-key shortcuts ("n", "g then f", End) must not fire while someone types.
import { useEffect, useState } from "react";

/**
 * True when a key event goes to something people type into: form fields,
 * content-editable elements, and code editors (Monaco takes keys on a plain
 * element through the EditContext API, so its tag says nothing).
 */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== "function") return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || !!el.closest('.monaco-editor, [role="textbox"]');
}

/** Like isTypingTarget, but a focused radio button or checkbox (an option just picked) leaves single-key shortcuts on. */
export function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLInputElement | null;
  if (el?.tagName === "INPUT" && (el.type === "radio" || el.type === "checkbox")) return false;
  return isTypingTarget(target);
}

/** "⌘" on Apple devices, "Ctrl" elsewhere: how to name the save shortcut's modifier. */
export function useModifierLabel(): string {
  const [label, setLabel] = useState("Ctrl");
  useEffect(() => {
    if (/Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)) setLabel("⌘");
  }, []);
  return label;
}
