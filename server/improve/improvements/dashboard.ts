// The loop on a dashboard (Improvements → Overview): friction by kind over
// time, improvements by tier and state, trust scores, and each live tool's
// agent before vs after it (success rate and model calls per run).
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { trustScore } from "./states";
import { visibleImprovements } from "./service";
import { visibleRunIds } from "./visibility";
import { runsVisibleTo } from "@/server/kernel";

const DAY = 86_400_000;

export async function improvementDashboard(db: Db, actor: Actor, days = 30, now = new Date()) {
  const since = new Date(now.getTime() - days * DAY);
  const frictionScope = actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] };
  const all = await db.frictionOccurrence.findMany({
    where: { createdAt: { gte: since }, friction: frictionScope },
    select: { runId: true, createdAt: true, count: true, friction: { select: { kind: true } } },
    take: 20_000,
  });
  const seen = await visibleRunIds(
    db,
    actor,
    all.map((o) => o.runId),
  );
  const occurrences = all.filter((o) => seen.has(o.runId));
  const byDay = new Map<string, Record<string, number>>();
  for (const o of occurrences) {
    const day = o.createdAt.toISOString().slice(0, 10);
    const row = byDay.get(day) ?? {};
    row[o.friction.kind] = (row[o.friction.kind] ?? 0) + o.count;
    byDay.set(day, row);
  }
  const frictionByDay = [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, kinds]) => ({ day, ...kinds }));

  const improvements = await db.improvement.findMany({
    where: visibleImprovements(actor),
    select: {
      id: true,
      tier: true,
      kind: true,
      name: true,
      version: true,
      state: true,
      uses: true,
      successes: true,
      promoted: true,
      scopeAgents: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  const byTierState = new Map<string, number>();
  for (const i of improvements) byTierState.set(`${i.tier}|${i.state}`, (byTierState.get(`${i.tier}|${i.state}`) ?? 0) + 1);

  const live = improvements.filter((i) => i.kind === "runtime_tool" && i.state === "active");
  const tools = await Promise.all(
    live.map(async (t) => {
      const agents = JSON.parse(t.scopeAgents) as string[];
      const [before, after] = await Promise.all([
        runStats(db, actor, agents, { lt: t.createdAt }),
        runStats(db, actor, agents, { gte: t.createdAt }),
      ]);
      return {
        id: t.id,
        name: t.name,
        version: t.version,
        uses: t.uses,
        successes: t.successes,
        trust: trustScore(t.uses, t.successes),
        promoted: t.promoted,
        agents,
        before,
        after,
      };
    }),
  );
  return {
    days,
    frictionByDay,
    frictionKinds: [...new Set(occurrences.map((o) => o.friction.kind))].sort(),
    byTierState: [...byTierState.entries()].map(([k, count]) => {
      const [tier, state] = k.split("|");
      return { tier: Number(tier), state, count };
    }),
    tools,
    cycles: await db.hackCycle
      .groupBy({
        by: ["state"],
        _count: { _all: true },
        where: {
          createdAt: { gte: since },
          ...(actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] }),
        },
      })
      .then((rows) => rows.map((r) => ({ state: r.state, count: r._count._all }))),
  };
}

/** Finished runs of these agents in the window: how many, the share that succeeded, model calls per run. */
async function runStats(db: Db, actor: Actor, agents: string[], createdAt: { lt: Date } | { gte: Date }) {
  if (!agents.length) return { runs: 0, successRate: null as number | null, stepsPerRun: null as number | null };
  const rows = await db.run.groupBy({
    by: ["status"],
    where: {
      AND: [
        { agentName: { in: agents }, createdAt, status: { in: ["succeeded", "failed", "canceled"] }, experimentId: null },
        runsVisibleTo(actor),
      ],
    },
    _count: { _all: true },
    _avg: { stepCount: true },
  });
  const runs = rows.reduce((n, r) => n + r._count._all, 0);
  const ok = rows.find((r) => r.status === "succeeded");
  const steps = rows.reduce((n, r) => n + (r._avg.stepCount ?? 0) * r._count._all, 0);
  return {
    runs,
    successRate: runs ? (ok?._count._all ?? 0) / runs : null,
    stepsPerRun: runs ? Math.round((steps / runs) * 10) / 10 : null,
  };
}
