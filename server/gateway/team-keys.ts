// Team gateway keys on Rein's own port (docs/gateway.md#team-keys): any
// program of a team calls the gateway with a key an admin issued. Each
// request looks its key up by digest in the database (nothing is cached, so a
// revocation reaches every process at once); the key's and the team's
// monthly budgets apply before each call; each call becomes a chat span of
// the synthetic run "gateway-key:<id>", so it counts in CostRollup for the team.
import crypto from "node:crypto";
import type http from "node:http";
import type { Db } from "@/server/db";
import { ModelCallError, callModel, modelName } from "@/server/kernel";
import { UnknownModelError, type ModelRouter, type ResolvedModel } from "@/server/models";
import { costOf, keyWorkflowId, spanIdOf, traceIdOf, type PriceBook, type SpanRecord } from "@/server/telemetry";
import { formatCost } from "@/lib/format";
import { GatewayRefusal } from "./errors";
import { GATEWAY_MODEL_ALIAS } from "./models-list";
import { serveGatewayRequest } from "./serve";
import { MAX_TOKEN_CHARS, presentedTokens, tokenDigest } from "./tokens";
import { ClientGone, addressesOf, upstreamRefusal, type Caller, type TurnAnswer, type TurnRequest } from "./turn";
import type { GatewayLog } from "./types";

/** Team gateway keys start with this; anything else is refused before it is hashed. */
export const KEY_PREFIX = "rein_gk_";
/** Where Rein's own port serves the gateway: `${GATEWAY_PATH}/v1/chat/completions` and the rest. */
export const GATEWAY_PATH = "/api/gateway";
/** What the router resolves for a key that names no model and a request that names none Rein knows. */
export const DEFAULT_KEY_MODEL = "auto";

export interface TeamKeyDeps {
  db: Db;
  router: ModelRouter;
  /** The team's monthly budget: the same check, and the same 80% warning, its runs get (server/limits Budgets.beforeTeamCall). */
  teamBudget: {
    beforeTeamCall(teamId: string, usd: number, from: { gatewayKeyId: string }): Promise<{ ok: boolean; reason?: string }>;
  };
  /** Telemetry's TraceSink: the calls' chat spans are queued on it, and what it has not written yet counts. */
  spans: {
    record(spans: SpanRecord[]): void;
    unwrittenCalls(scope: { runId: string }): { costUsd: number; latest: SpanRecord | null };
  };
  prices: Pick<PriceBook, "lookup">;
  log: GatewayLog;
  now?: () => Date;
}

interface KeyRow {
  id: string;
  teamId: string;
  name: string;
  budgetUsd: number | null;
  model: string | null;
  createdAt: Date;
}

const unauthorized = (why: string) =>
  new GatewayRefusal(
    "unauthorized",
    `${why}: send a Rein team gateway key as 'Authorization: Bearer <key>' or 'x-api-key: <key>'; an admin issues one in Settings › Gateway keys`,
    { "www-authenticate": 'Bearer realm="rein-gateway"' },
  );

export class TeamKeyGateway {
  /** Requests in flight per key, in this process. */
  private readonly inFlight = new Map<string, number>();
  private step = 0;

  constructor(private readonly deps: TeamKeyDeps) {}

  /** Node http handler for `${GATEWAY_PATH}/v1/...` on Rein's port. */
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? "/", "http://rein").pathname;
    const path = pathname.startsWith(`${GATEWAY_PATH}/`) ? pathname.slice(GATEWAY_PATH.length) : pathname;
    return serveGatewayRequest(req, res, { path, log: this.deps.log, authenticate: (r) => this.authenticate(r) });
  }

  /** The key presented, checked against the database now: unknown, revoked or expired is 401. */
  async authenticate(req: http.IncomingMessage): Promise<Caller> {
    const now = this.now();
    let refusal = unauthorized("This request has no Rein gateway key");
    for (const presented of presentedTokens(req)) {
      // A length and a prefix first: a long or foreign value costs no hash and no query.
      if (presented.length > MAX_TOKEN_CHARS || !presented.startsWith(KEY_PREFIX)) {
        refusal = unauthorized("This is not a Rein gateway key");
        continue;
      }
      const row = await this.deps.db.gatewayKey.findUnique({
        where: { tokenHash: tokenDigest(presented) },
        select: { id: true, teamId: true, name: true, budgetUsd: true, model: true, createdAt: true, revokedAt: true, expiresAt: true },
      });
      if (!row) refusal = unauthorized("This gateway key is not known");
      else if (row.revokedAt) refusal = unauthorized(`The gateway key ${row.name} was revoked`);
      else if (row.expiresAt && row.expiresAt <= now) refusal = unauthorized(`The gateway key ${row.name} has expired`);
      else return this.callerFor(row);
    }
    throw refusal;
  }

  private callerFor(key: KeyRow): Caller {
    const counts = this.inFlight;
    return {
      label: `gateway key ${key.id}`,
      kind: "key",
      get inFlight() {
        return counts.get(key.id) ?? 0;
      },
      set inFlight(n: number) {
        if (n > 0) counts.set(key.id, n);
        else counts.delete(key.id);
      },
      models: () => {
        const configured = (this.deps.router.knownModels?.() ?? []).filter((m) => !m.startsWith("scripted/"));
        return { ids: [...new Set([key.model ?? DEFAULT_KEY_MODEL, GATEWAY_MODEL_ALIAS, ...configured])], since: key.createdAt.getTime() };
      },
      turn: (request) => this.turn(key, request),
    };
  }

  private async turn(key: KeyRow, request: TurnRequest): Promise<TurnAnswer> {
    const runId = keyWorkflowId(key.id);
    const next = await this.admit(key);
    const resolved = this.resolve(key, request);
    const startTime = this.now();
    const step = ++this.step;
    const calls: Array<TurnAnswer["toolCalls"]> = [];
    let result: Awaited<ReturnType<typeof callModel>>;
    try {
      // A key's call belongs to no run: nothing goes on a timeline; its span below is its record.
      result = await callModel(
        { router: this.deps.router, appendEvents: async () => undefined, publishTransient: () => undefined },
        resolved,
        {
          runId,
          step,
          agent: "gateway-key",
          options: { ...request.options, abortSignal: request.signal },
          onPart(part, attempt) {
            if (part.type === "text-delta") request.onText?.(part.delta);
            else if (part.type === "tool-call")
              (calls[attempt] ??= []).push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
          },
        },
      );
    } catch (err) {
      if (request.signal.aborted) throw new ClientGone();
      if (err instanceof ModelCallError)
        throw upstreamRefusal(err.cause, addressesOf(resolved), "an admin sees the provider's health in Settings › Models");
      throw err;
    }
    this.record(key, request, result, startTime, next);
    await this.deps.db.gatewayKey
      .update({ where: { id: key.id }, data: { lastUsedAt: this.now() }, select: { id: true } })
      .catch((err: unknown) => this.deps.log.error(`model gateway: gateway key ${key.id}: could not note its last use`, err));
    return {
      text: result.text,
      toolCalls: calls[result.failovers] ?? [],
      finishReason: result.finishReason as TurnAnswer["finishReason"],
      usage: result.usage,
    };
  }

  /**
   * The key's own monthly budget, then the team's (docs/gateway.md#team-keys):
   * the next call is assumed to cost what the key's last one did. Returns that estimate.
   */
  private async admit(key: KeyRow): Promise<number> {
    const runId = keyWorkflowId(key.id);
    const month = this.now().toISOString().slice(0, 7);
    const queued = this.deps.spans.unwrittenCalls({ runId });
    const last =
      queued.latest?.costUsd ??
      (await this.deps.db.span.findFirst({ where: { runId, kind: "chat" }, orderBy: { startTime: "desc" }, select: { costUsd: true } }))
        ?.costUsd ??
      0;
    if (key.budgetUsd !== null) {
      const agg = await this.deps.db.costRollup.aggregate({
        where: { teamId: key.teamId, workflowId: runId, day: { gte: `${month}-01` } },
        _sum: { costUsd: true },
      });
      const spent = (agg._sum.costUsd ?? 0) + queued.costUsd;
      if (spent >= key.budgetUsd || spent + last > key.budgetUsd)
        throw new GatewayRefusal(
          "budget",
          `The gateway key ${key.name} has spent ${formatCost(spent)} of its ${formatCost(key.budgetUsd)} budget for ${month}; the next model call (about ${formatCost(last)}) would exceed it`,
        );
    }
    const team = await this.deps.teamBudget.beforeTeamCall(key.teamId, last, { gatewayKeyId: key.id });
    if (!team.ok) throw new GatewayRefusal("budget", team.reason ?? "The team's budget for this month is spent");
    return last;
  }

  /** The model the request names when Rein knows it, else the key's (docs/gateway.md#which-model-answers). */
  private resolve(key: KeyRow, request: TurnRequest): ResolvedModel {
    const known = this.deps.router.knownModels?.() ?? [];
    const model = known.includes(request.requestedModel) ? request.requestedModel : (key.model ?? DEFAULT_KEY_MODEL);
    try {
      return this.deps.router.resolve({
        model,
        taskClass: "code",
        teamId: key.teamId,
        complexity: null,
        needsTools: (request.options.tools?.length ?? 0) > 0,
      });
    } catch (err) {
      if (err instanceof UnknownModelError)
        throw new GatewayRefusal("unknown_model", `The gateway key's model cannot serve this call: ${err.message}`);
      throw err;
    }
  }

  /** The call as a chat span of the key's synthetic run: tokens, cost, model; never the key, the prompt or the answer. */
  private record(key: KeyRow, request: TurnRequest, result: Awaited<ReturnType<typeof callModel>>, startTime: Date, estimate: number) {
    const runId = keyWorkflowId(key.id);
    const model = modelName(result.served);
    const { usage } = result;
    const { price, known } = this.deps.prices.lookup(model);
    const cost = costOf(usage, price);
    const callId = crypto.randomUUID();
    const span: SpanRecord = {
      spanId: spanIdOf(runId, "chat", callId),
      traceId: traceIdOf(`${runId}/${callId}`),
      parentSpanId: null,
      runId,
      kind: "chat",
      name: `chat ${model}`,
      startTime,
      endTime: this.now(),
      status: "ok",
      teamId: key.teamId,
      workflowId: runId,
      userId: null,
      model,
      tool: null,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      costUsd: cost,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": model.split("/", 1)[0],
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": usage.inputTokens,
        "gen_ai.usage.output_tokens": usage.outputTokens,
        "gen_ai.usage.cache_read.input_tokens": usage.cachedInputTokens,
        "gen_ai.response.finish_reasons": result.finishReason,
        "rein.cost_usd": cost,
        "rein.model.scripted": result.served.scripted,
        "rein.gateway.key.id": key.id,
        "rein.gateway.requested_model": request.requestedModel.slice(0, 256),
        "rein.gateway.estimate_usd": estimate,
        ...(result.failovers ? { "rein.failovers": result.failovers } : {}),
        ...(known ? {} : { "rein.cost.unpriced": true }),
      },
      detail: null,
    };
    this.deps.spans.record([span]);
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }
}
