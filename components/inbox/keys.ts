export { typingIn } from "@/lib/keyboard";
import type { Shortcut } from "@/lib/shortcuts";

/** Arrow keys on a radio button move between its options; shortcuts leave them alone. */
export function isRadio(target: EventTarget | null): boolean {
  const el = target as HTMLInputElement | null;
  return el?.tagName === "INPUT" && el.type === "radio";
}

/** The Inbox's own keys, listed in the "?" dialog. */
export const INBOX_SHORTCUTS: readonly Shortcut[] = [
  { keys: ["j", "↓"], what: "Next request" },
  { keys: ["k", "↑"], what: "Previous request" },
  { keys: ["a"], what: "Approve (approve now for a veto; send the choice or answer)" },
  { keys: ["r"], what: "Reject, veto or decline: focuses the comment first" },
  { keys: ["Ctrl", "Enter"], what: "In the comment after r: reject with it" },
  { keys: ["Esc"], what: "Leave the comment without rejecting" },
];
