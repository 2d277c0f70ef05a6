// A person's own choice of which human requests reach them by mail (the
// profile page): none; every request they may decide; or only those that
// escalated to them. On-call mails (level 3) go to everyone but "none".
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";

export const MAIL_PREFERENCES = ["none", "decide", "escalated"] as const;
export type MailPreference = (typeof MAIL_PREFERENCES)[number];
export const MailPreferenceInput = z.object({ mailRequests: z.enum(MAIL_PREFERENCES, { message: "none, decide or escalated" }) });

/** Whether a person with this choice gets a mail at this level (1: opened; 2: escalated; 3: on call). */
export function wantsMail(preference: string, level: number): boolean {
  if (preference === "none") return false;
  if (level >= 3) return true;
  if (level === 2) return preference === "decide" || preference === "escalated";
  return preference === "decide";
}

export async function mailPreference(db: Db, actor: Actor): Promise<{ email: string; mailRequests: MailPreference }> {
  const user = await db.user.findUniqueOrThrow({ where: { id: actor.userId }, select: { email: true, mailRequests: true } });
  const known = (MAIL_PREFERENCES as readonly string[]).includes(user.mailRequests);
  return { email: user.email, mailRequests: known ? (user.mailRequests as MailPreference) : "decide" };
}

/** Sets the caller's own choice; nobody sets another person's. */
export async function setMailPreference(db: Db, actor: Actor, input: unknown): Promise<{ mailRequests: MailPreference }> {
  const { mailRequests } = MailPreferenceInput.parse(input);
  await db.user.update({ where: { id: actor.userId }, data: { mailRequests }, select: { id: true } });
  await recordAudit(db, {
    kind: "user.mail_preference",
    actorId: actor.userId,
    actorName: actor.name,
    channel: "admin",
    subject: actor.userId,
    detail: { mailRequests },
  });
  return { mailRequests };
}
