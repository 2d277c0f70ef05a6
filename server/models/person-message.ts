// Turns the kernel writes into a conversation, as the model reads them: a
// person's message to a running agent (a user turn that says who wrote it),
// and the seed of a fresh session (a user turn that says which session it is
// and how many model turns came before). The scripted model recognises both:
// it answers a message with its scenario's `onMessage` turns, and goes on
// with its script where the last session left it.
import type { Message } from "./types";

const HEADER = /^\[Message from ([^\]\n]{1,200})\]\n/;

/** The user turn carrying `text` from `name` (the kernel adds it before the next model call). */
export function personMessage(name: string, text: string): Message {
  const who =
    name
      .replace(/[\]\n]/g, " ")
      .trim()
      .slice(0, 200) || "a person";
  return { role: "user", content: `[Message from ${who}]\n${text}` };
}

/** Whether a prompt message is a person's message written by personMessage. */
export function isPersonMessage(m: Message): boolean {
  return m.role === "user" && HEADER.test(m.content);
}

const SEED = /^\[Session (\d{1,6}) · a fresh start after (\d{1,7}) model turns?( · its last step failed)?\]\n/;

/**
 * The first line of a fresh session's seed (server/kernel/sessions.ts writes
 * the rest): which session, how many model turns came before, and whether the
 * last step of the session before failed.
 */
export function sessionSeedHeader(session: number, turnsBefore: number, lastStepFailed = false): string {
  return `[Session ${session} · a fresh start after ${turnsBefore} model turn${turnsBefore === 1 ? "" : "s"}${lastStepFailed ? " · its last step failed" : ""}]\n`;
}

/** What a session's seed says of the sessions before it, when the prompt message is one. */
export function parseSessionSeed(m: Message): { session: number; turnsBefore: number; lastStepFailed: boolean } | null {
  if (m.role !== "user") return null;
  const match = SEED.exec(m.content);
  return match ? { session: Number(match[1]), turnsBefore: Number(match[2]), lastStepFailed: match[3] !== undefined } : null;
}
