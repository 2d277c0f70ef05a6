// The JudgeClient against fake OpenAI-compatible providers behind the real
// router: a judge is always of another family than the agent's model, within
// the team's pool, never the scripted model, and costed from the price table.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DefaultModelRouter } from "@/server/models";
import { costOf, PriceBook } from "@/server/telemetry";
import { createJudgeClient, JudgeUnavailableError, type JudgeClient } from "./index";
import { judgeWorld, says, type JudgeWorld } from "@/test/helpers/judges";

const ASK = { system: "You judge.", user: "Judge this." };

async function refusal(client: JudgeClient): Promise<JudgeUnavailableError> {
  const err = await client.ask(ASK).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JudgeUnavailableError);
  return err as JudgeUnavailableError;
}

let world: JudgeWorld;

beforeAll(async () => {
  world = await judgeWorld(
    { "alpha/a1": "alpha", "alpha/a2": "alpha", "beta/b1": "beta", "gamma/g1": "gamma" },
    {
      rules: { judge: { candidates: ["alpha/a1", "beta/b1", "gamma/g1"] } },
      pools: [{ name: "restricted", models: ["alpha/a1", "gamma/g1"] }],
      teamPools: { "team-r": "restricted" },
    },
  );
});
afterEach(() => world.reset());
afterAll(() => world?.close());

describe("createJudgeClient", () => {
  it("asks a model of another family than the agent's, and says which", async () => {
    world.servers.beta.enqueue(says('{"score":1}'));
    const client = createJudgeClient({ router: world.router, agentModel: "alpha/a1" });
    expect(client.agentFamily).toBe("alpha");
    const reply = await client.ask(ASK);
    expect(reply).toMatchObject({ text: '{"score":1}', model: "beta/b1", label: "beta · b1", family: "beta", costUsd: null });
    expect(reply.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 50 });
    expect(world.asked("beta")).toEqual(["b1"]);
    expect(world.asked("alpha")).toEqual([]);
  });

  it("judges an agent of the judge rule's first family with the next family", async () => {
    world.servers.alpha.enqueue(says("ok"));
    const reply = await createJudgeClient({ router: world.router, agentModel: "beta/b1" }).ask(ASK);
    expect(reply.model).toBe("alpha/a1");
    expect(world.asked("alpha")).toEqual(["a1"]);
    expect(world.asked("beta")).toEqual([]);
  });

  it("picks the judge within the run team's pool", async () => {
    world.servers.gamma.enqueue(says("ok"));
    const reply = await createJudgeClient({ router: world.router, agentModel: "alpha/a1", teamId: "team-r" }).ask(ASK);
    expect(reply.model).toBe("gamma/g1");
    expect(world.asked("beta")).toEqual([]);
  });

  it("judges a scripted agent with a configured model, the scripted model never", async () => {
    world.servers.alpha.enqueue(says("ok"));
    const client = createJudgeClient({ router: world.router, agentModel: "scripted/demo-coder" });
    expect(client.agentFamily).toBe("scripted");
    expect((await client.ask(ASK)).model).toBe("alpha/a1");
  });

  it("costs the call from the price table", async () => {
    const prices = new PriceBook();
    const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
    prices.set("beta/b1", price);
    world.servers.beta.enqueue(says("ok", { uncachedInputTokens: 2_000, outputTokens: 100 }));
    const reply = await createJudgeClient({ router: world.router, agentModel: "alpha/a1", prices }).ask(ASK);
    expect(reply.costUsd).toBe(costOf(reply.usage, price));
    expect(reply.costUsd).toBeCloseTo((2_000 * 3 + 100 * 15) / 1e6, 10);
  });

  it("fails over to the next judge of another family when one is overloaded", async () => {
    world.servers.beta.enqueue({ type: "status", status: 503, message: "overloaded" });
    world.servers.gamma.enqueue(says("ok"));
    const router = world.newRouter();
    const reply = await createJudgeClient({ router, agentModel: "alpha/a1" }).ask(ASK);
    expect(reply.model).toBe("gamma/g1");
    expect(world.asked("beta")).toEqual(["b1"]);
    expect(world.asked("alpha")).toEqual([]);
    expect(router.coolingUntil("beta/b1")).not.toBeNull();
  });

  it("refuses, with the provider's reason, when the judge fails and failing over would not help", async () => {
    world.servers.beta.enqueue({ type: "status", status: 401, message: "Incorrect API key provided" });
    const err = await refusal(createJudgeClient({ router: world.newRouter(), agentModel: "alpha/a1" }));
    expect(err.message).toMatch(/^the judge beta · b1 could not answer: .*Incorrect API key provided/);
    expect(world.asked("gamma")).toEqual([]);
  });

  it("names a judge model when asked to, and refuses one of the agent's family", async () => {
    world.servers.gamma.enqueue(says("ok"));
    const client = createJudgeClient({ router: world.router, agentModel: "alpha/a1" });
    expect((await client.ask({ ...ASK, model: "gamma/g1" })).model).toBe("gamma/g1");
    const same = await client.ask({ ...ASK, model: "alpha/a2" }).catch((e: Error) => e);
    expect(same).toBeInstanceOf(JudgeUnavailableError);
    expect((same as Error).message).toBe("the judge model alpha/a2 is of the same family (alpha) as the agent it judges");
    const missing = await client.ask({ ...ASK, model: "delta/d1" }).catch((e: Error) => e);
    expect((missing as Error).message).toBe("the judge model delta/d1 is not configured in Settings → Models");
    expect(world.asked("alpha")).toEqual([]);
  });

  it("refuses, with the reason, when only models of the agent's family are configured", async () => {
    const same = await judgeWorld({ "alpha/a1": "alpha", "alpha/a2": "alpha" });
    try {
      const err = await refusal(createJudgeClient({ router: same.router, agentModel: "alpha/a1" }));
      expect(err.message).toBe(
        "no judge model is configured: add a model of another family than alpha for the judge task class in Settings → Models",
      );
      expect(same.asked("alpha")).toEqual([]);
    } finally {
      await same.close();
    }
  });

  it("refuses when no model is configured: the scripted model does not judge", async () => {
    const err = await refusal(
      createJudgeClient({ router: new DefaultModelRouter({ scriptedDelayMs: 0 }), agentModel: "scripted/demo-coder" }),
    );
    expect(err.message).toBe(
      "no judge model is configured: add a model of another family than scripted for the judge task class in Settings → Models",
    );
  });

  it("refuses when the agent's model family is not known, rather than risk judging it with its own family", async () => {
    expect((await refusal(createJudgeClient({ router: world.router, agentModel: "removed/old-model" }))).message).toMatch(
      /^the family of the agent's model removed\/old-model is not known \(it is not in Settings → Models\)/,
    );
    expect((await refusal(createJudgeClient({ router: world.router, agentModel: null }))).message).toMatch(/^the run made no model call/);
    expect(Object.keys(world.servers).flatMap((p) => world.asked(p))).toEqual([]);
  });

  it("a router that offers a judge of the agent's family or the scripted model is not trusted", async () => {
    const scripted = new DefaultModelRouter({ scriptedDelayMs: 0 });
    const lying = { resolve: () => scripted.resolve({ model: "scripted/demo-coder", taskClass: "judge" }), familyOf: () => "alpha" };
    expect((await refusal(createJudgeClient({ router: lying, agentModel: "alpha/x" }))).message).toMatch(/^no judge model is configured/);
    const sameFamily = {
      resolve: () => world.router.resolve({ model: "alpha/a2", taskClass: "code" }),
      familyOf: (ref: string) => world.router.familyOf(ref),
    };
    expect((await refusal(createJudgeClient({ router: sameFamily, agentModel: "alpha/a1" }))).message).toMatch(
      /^no judge model is configured/,
    );
    expect(world.asked("alpha")).toEqual([]);
  });
});
