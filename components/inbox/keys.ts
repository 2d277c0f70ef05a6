import { isTypingTarget } from "@/lib/keyboard";

/** Like isTypingTarget, but a focused radio button or checkbox (an option just picked) leaves single-key shortcuts on. */
export function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLInputElement | null;
  if (el?.tagName === "INPUT" && (el.type === "radio" || el.type === "checkbox")) return false;
  return isTypingTarget(target);
}

/** Arrow keys on a radio button move between its options; shortcuts leave them alone. */
export function isRadio(target: EventTarget | null): boolean {
  const el = target as HTMLInputElement | null;
  return el?.tagName === "INPUT" && el.type === "radio";
}
