// Which Rein user a Slack user is (Settings › Channels › Slack › People):
// matched by e-mail, by a sync or at a person's first click, and set or
// cleared by an admin. An admin's choice stands: neither a sync nor a click
// changes a mapping an admin made (their ids are kept in MANUAL_SETTING).
import { z } from "zod";
import type { WebClient } from "@slack/web-api";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ChannelError, parseChannelInput, requireChannelAdmin } from "../errors";
import { describeSlackError, slackClient, type SlackDeps } from "./client";
import { readSlackSettings } from "./settings";

export const MANUAL_SETTING = "channels.slack.manual";
const SlackUserId = z
  .string()
  .trim()
  .regex(/^[UW][A-Z0-9]{2,30}$/, "a Slack member id such as U0123ABCD");

export const SlackMappingInput = z
  .object({
    slackUserId: SlackUserId,
    /** The Rein user, or null: this Slack user is nobody in Rein. */
    userId: z.string().min(1).max(64).nullable(),
  })
  .strict();

export interface SlackUserView {
  slackUserId: string;
  slackName: string | null;
  email: string | null;
  user: { id: string; name: string; email: string; disabled: boolean } | null;
  /** An admin set or cleared this mapping; syncs leave it alone. */
  manual: boolean;
}

async function manualIds(db: Db): Promise<Set<string>> {
  const row = await db.setting.findUnique({ where: { key: MANUAL_SETTING }, select: { value: true } });
  try {
    const ids = row ? (JSON.parse(row.value) as unknown) : [];
    return new Set(Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

export async function listSlackUsers(db: Db, actor: Actor): Promise<SlackUserView[]> {
  requireChannelAdmin(actor, "Seeing who is who in Slack");
  const [rows, manual] = await Promise.all([
    db.slackUser.findMany({
      select: { slackUserId: true, slackName: true, email: true, userId: true },
      orderBy: { slackName: { sort: "asc", nulls: "first" } },
      take: 5000,
    }),
    manualIds(db),
  ]);
  const ids = rows.map((r) => r.userId).filter((x): x is string => !!x);
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true, disabledAt: true } });
  const byId = new Map(users.map((u) => [u.id, { id: u.id, name: u.name, email: u.email, disabled: !!u.disabledAt }]));
  return rows.map((r) => ({
    slackUserId: r.slackUserId,
    slackName: r.slackName,
    email: r.email,
    user: r.userId ? (byId.get(r.userId) ?? null) : null,
    manual: manual.has(r.slackUserId),
  }));
}

/** An admin says who a Slack user is in Rein (or that they are nobody). */
export async function setSlackMapping(db: Db, actor: Actor, input: unknown): Promise<SlackUserView> {
  requireChannelAdmin(actor, "Mapping Slack users");
  const { slackUserId, userId } = parseChannelInput(SlackMappingInput, input);
  if (userId && !(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) {
    throw new ChannelError("NOT_FOUND", `No person has the id ${userId}`, [{ field: "userId", message: "no such person" }]);
  }
  const manual = await manualIds(db);
  manual.add(slackUserId);
  const value = JSON.stringify([...manual]);
  await db.$transaction([
    db.slackUser.upsert({ where: { slackUserId }, create: { slackUserId, userId }, update: { userId }, select: { slackUserId: true } }),
    db.setting.upsert({
      where: { key: MANUAL_SETTING },
      create: { key: MANUAL_SETTING, value, updatedById: actor.userId },
      update: { value, updatedById: actor.userId },
    }),
  ]);
  await recordAudit(db, {
    kind: "channels.slack.mapping",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.via === "session" ? "admin" : "api",
    subject: slackUserId,
    detail: { slackUserId, userId },
  });
  return (await listSlackUsers(db, actor)).find((u) => u.slackUserId === slackUserId)!;
}

interface SlackMember {
  id?: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  profile?: { email?: string; real_name?: string; display_name?: string };
}

/** Records a Slack member and, unless an admin decided otherwise, maps them by e-mail; returns the Rein user id. */
async function remember(db: Db, member: SlackMember, manual: Set<string>): Promise<string | null> {
  const slackUserId = member.id!;
  const email = member.profile?.email?.trim().toLowerCase() || null;
  const slackName = (member.profile?.real_name || member.real_name || member.name || "").slice(0, 200) || null;
  if (manual.has(slackUserId)) {
    const row = await db.slackUser.upsert({
      where: { slackUserId },
      create: { slackUserId, email, slackName },
      update: { email, slackName },
      select: { userId: true },
    });
    return row.userId;
  }
  const user = email ? await db.user.findUnique({ where: { email }, select: { id: true } }) : null;
  const userId = user?.id ?? null;
  await db.slackUser.upsert({
    where: { slackUserId },
    create: { slackUserId, email, slackName, userId },
    update: { email, slackName, userId },
    select: { slackUserId: true },
  });
  return userId;
}

/** Reads every member of the workspace and maps them to Rein users by e-mail. */
export async function syncSlackUsers(deps: SlackDeps, actor: Actor): Promise<{ seen: number; mapped: number; unmatched: number }> {
  requireChannelAdmin(actor, "Syncing Slack users");
  const client = await slackClient(deps, await readSlackSettings(deps.db));
  const manual = await manualIds(deps.db);
  let seen = 0;
  let mapped = 0;
  let cursor: string | undefined;
  try {
    do {
      const page = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      for (const member of (page.members ?? []) as SlackMember[]) {
        if (!member.id || member.deleted || member.is_bot || member.id === "USLACKBOT") continue;
        seen++;
        if (await remember(deps.db, member, manual)) mapped++;
      }
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor && seen < 100_000);
  } catch (err) {
    throw new ChannelError("UNAVAILABLE", describeSlackError(err));
  }
  await recordAudit(deps.db, {
    kind: "channels.slack.sync",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.via === "session" ? "admin" : "api",
    subject: "Slack users",
    detail: { seen, mapped },
  });
  return { seen, mapped, unmatched: seen - mapped };
}

/**
 * The Rein user id of the Slack user who clicked: their mapping, else (once)
 * their Slack e-mail matched to a Rein user; null when they are nobody in Rein.
 */
export async function reinUserOf(db: Db, client: WebClient, slackUserId: string): Promise<string | null> {
  const row = await db.slackUser.findUnique({ where: { slackUserId }, select: { userId: true } });
  if (row?.userId) return row.userId;
  const manual = await manualIds(db);
  if (manual.has(slackUserId)) return null;
  const info = await client.users.info({ user: slackUserId });
  const member = info.user as SlackMember | undefined;
  if (!member?.id || member.id !== slackUserId || member.deleted || member.is_bot) return null;
  return remember(db, member, manual);
}
