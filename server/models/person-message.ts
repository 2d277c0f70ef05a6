// A person's message to a running agent, as the model reads it: a user turn
// that says who wrote it. The scripted model recognises it to play its
// scenario's `onMessage` turns.
import type { Message } from "./types";

const HEADER = /^\[Message from ([^\]\n]{1,200})\]\n/;

/** The user turn carrying `text` from `name` (the kernel adds it before the next model call). */
export function personMessage(name: string, text: string): Message {
  const who = name.replace(/[\]\n]/g, " ").trim().slice(0, 200) || "a person";
  return { role: "user", content: `[Message from ${who}]\n${text}` };
}

/** Whether a prompt message is a person's message written by personMessage. */
export function isPersonMessage(m: Message): boolean {
  return m.role === "user" && HEADER.test(m.content);
}
