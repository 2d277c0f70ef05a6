import { describe, expect, it } from "vitest";
import type { RunEventRecord } from "@/server/kernel";
import { spanIdOf } from "@/server/telemetry";
import { ALLOWED, RunLog, askedBy } from "./fixtures";
import { RunFrictionMiner, errorClass, mineRun, type FrictionObservation } from "./index";

const PY_FAIL = (tmp: string, line: number, who: string) =>
  `Reading ${tmp}/sales.csv\nTraceback (most recent call last):\n  File "${tmp}/report.py", line ${line}, in <module>\n    total += float(row["amount"])\nValueError: could not convert string to float: '${who}'\n`;
const AWK_FAIL = (line: number, who: string) => `awk: line ${line}: not a number: "${who}"\n`;
const LOOP_REPEAT = "shell ran 4 times in a row with the same arguments";
const LOOP_NO_PROGRESS = "No progress for 5 steps: every tool call failed";

/** kind and signature of each observation, in order: what most cases assert. */
const brief = (obs: FrictionObservation[]) => obs.map((o) => `${o.kind} ${o.signature} x${o.count}`);

const cases: Array<{ name: string; log: () => RunEventRecord[]; expected: string[] }> = [
  {
    name: "a healthy run: every tool ok, the run succeeds",
    log: () =>
      new RunLog("r1").shell("ls", 0, "report.py\nsales.csv\n").ok("read_file", { path: "report.py" }, { content: "import csv" }).succeed(),
    expected: [],
  },
  {
    name: "one failure, then success",
    log: () =>
      new RunLog("r1")
        .shell("python3 report.py", 1, PY_FAIL("/tmp/tmp.a1", 14, "Smith, J"))
        .shell("python3 report.py --skip-bad", 0, "total 1,024.50\n")
        .succeed(),
    expected: [],
  },
  {
    name: "two failures of one class: under the threshold",
    log: () =>
      new RunLog("r1")
        .shell("awk -f sum.awk a.csv", 2, AWK_FAIL(3, "Smith, J"))
        .shell("awk -f sum.awk b.csv", 2, AWK_FAIL(7, "Lee, K"))
        .succeed(),
    expected: [],
  },
  {
    name: "three failures of one class (different lines and quoted names): once, at the threshold",
    log: () =>
      new RunLog("r1")
        .shell("awk -f sum.awk a.csv", 2, AWK_FAIL(3, "Smith, J"))
        .shell("awk -f sum.awk b.csv", 2, AWK_FAIL(7, "Lee, K"))
        .shell("awk -f sum.awk c.csv", 2, AWK_FAIL(12, "O'Brien, P"))
        .succeed(),
    expected: ['repeated_failure repeated_failure|shell|exit:2|awk: line N: not a number: "*" x3'],
  },
  {
    name: "failures that grow past the threshold: at the threshold, then the final count when the run ends",
    log: () => {
      const log = new RunLog("r1");
      for (let i = 0; i < 5; i++) log.shell("python3 report.py", 1, PY_FAIL(`/tmp/tmp.${i}x9`, 10 + i, `Name ${i}`));
      return log.failWith("AGENT_STOPPED", "The agent gave up");
    },
    expected: [
      'repeated_failure repeated_failure|shell|exit:1|ValueError: could not convert string to float: "*" x3',
      'repeated_failure repeated_failure|shell|exit:1|ValueError: could not convert string to float: "*" x5',
    ],
  },
  {
    name: "different exit codes do not share a class",
    log: () =>
      new RunLog("r1")
        .shell("make", 1, "make: *** [all] Error 1\n")
        .shell("make", 2, "make: *** [all] Error 2\n")
        .shell("make", 1, "make: *** [all] Error 1\n")
        .shell("make", 2, "make: *** [all] Error 2\n")
        .succeed(),
    expected: [],
  },
  {
    name: "the same error from different tools does not share a class",
    log: () =>
      new RunLog("r1")
        .fail("read_file", { path: "a.txt" }, "NOT_FOUND", "No such file: a.txt")
        .fail("write_file", { path: "a.txt" }, "NOT_FOUND", "No such file: a.txt")
        .fail("read_file", { path: "a.txt" }, "NOT_FOUND", "No such file: a.txt")
        .succeed(),
    expected: [],
  },
  {
    name: "tool errors (ok: false) with different paths share a class",
    log: () =>
      new RunLog("r1")
        .fail("read_file", { path: "src/a.ts" }, "NOT_FOUND", "No such file: src/a.ts")
        .fail("read_file", { path: "src/lib/b.ts" }, "NOT_FOUND", "No such file: src/lib/b.ts")
        .fail("read_file", { path: "./c.ts" }, "NOT_FOUND", "No such file: ./c.ts")
        .succeed(),
    expected: ["repeated_failure repeated_failure|read_file|NOT_FOUND|No such file: <path> x3"],
  },
  {
    name: "unknown tools: each call, never again as a repeated failure",
    log: () => {
      const log = new RunLog("r1");
      for (let i = 0; i < 3; i++)
        log.fail(
          "deploy_prod",
          { env: "prod" },
          "UNKNOWN_TOOL",
          'Tool "deploy_prod" is not available to this agent (available: shell, read_file)',
        );
      return log.succeed();
    },
    expected: [
      "unknown_tool unknown_tool|deploy_prod x1",
      "unknown_tool unknown_tool|deploy_prod x2",
      "unknown_tool unknown_tool|deploy_prod x3",
    ],
  },
  {
    name: "a doom-loop pause for a repeated call; the person lets it go on",
    log: () => {
      const log = new RunLog("r1");
      for (let i = 0; i < 3; i++) log.shell("npm test", 0, "ok\n");
      const id = log.call("shell", { command: "npm test" });
      log.decided(log.requested(id, "shell", "choose", LOOP_REPEAT), "choose", "APPROVED", { decision: "choose", optionId: "continue" });
      return log.result(id, "shell", { ok: true, output: { exitCode: 0, output: "ok\n" } }).succeed();
    },
    expected: ["doom_loop doom_loop|shell|repeat x1"],
  },
  {
    name: "a doom-loop pause for no progress; the person skips the call",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("read_file", { path: "x" });
      log.decided(log.requested(id, "read_file", "choose", LOOP_NO_PROGRESS), "choose", "APPROVED", {
        decision: "choose",
        optionId: "skip",
      });
      return log
        .result(id, "read_file", {
          ok: false,
          error: { code: "LOOP_SKIPPED", message: "A person skipped this call: your last 5 steps all failed. Try a different approach." },
        })
        .succeed();
    },
    expected: ["doom_loop doom_loop|no_progress x1"],
  },
  {
    name: "a loop request known by its slot, whatever its title",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("shell", { command: "make" });
      log.requested(id, "shell", "choose", "The agent keeps running make", "loop");
      return log.cancel("The run stopped: shell repeated 4 times and nobody let it go on");
    },
    expected: ["doom_loop doom_loop|shell|loop x1"],
  },
  {
    name: "a person rejects a call a named policy rule asked about",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("shell", { command: "./deploy.sh prod" });
      log.decided(log.requested(id, "shell", "approve", "Run `./deploy.sh prod`?"), "approve", "REJECTED", {
        decision: "reject",
        comment: "Not on a Friday",
      });
      return log
        .result(
          id,
          "shell",
          { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann Approver rejected this call: Not on a Friday" } },
          askedBy(2, "deploys need approval"),
        )
        .succeed();
    },
    expected: ["human_rejected human_rejected|shell|rule:team:deploys need approval x1"],
  },
  {
    name: "a veto by an unnamed rule",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("shell", { command: "rm -rf build" });
      log.decided(log.requested(id, "shell", "veto", "Run `rm -rf build` unless someone vetoes"), "veto", "REJECTED", { decision: "veto" });
      return log
        .result(
          id,
          "shell",
          { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann Approver vetoed this call" } },
          askedBy(4, null, "org"),
        )
        .succeed();
    },
    expected: ["human_rejected human_rejected|shell|rule:org:#5 x1"],
  },
  {
    name: "a refused consent question (the policy allowed the call)",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("upgrade_tier", { to: "T2", reason: "need a browser" });
      log.decided(log.requested(id, "upgrade_tier", "approve", "Move this run to T2 (desktop)?"), "approve", "REJECTED", {
        decision: "reject",
      });
      return log.result(id, "upgrade_tier", { ok: true, output: { tier: "T1", refused: "consent was not given" } }, ALLOWED).succeed();
    },
    expected: ["human_rejected human_rejected|upgrade_tier|consent x1"],
  },
  {
    name: "a rejected call whose result never came (the run was canceled): reported when the run ends",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("shell", { command: "./deploy.sh prod" });
      log.decided(log.requested(id, "shell", "approve", "Run `./deploy.sh prod`?"), "approve", "REJECTED", { decision: "reject" });
      return log.cancel("Canceled by an operator");
    },
    expected: ["human_rejected human_rejected|shell|policy x1"],
  },
  {
    name: "an ask_human question answered no is an answer, not friction",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("ask_human", { kind: "approve", question: "Delete the old reports?" });
      log.decided(log.requested(id, "ask_human", "approve", "Delete the old reports?"), "approve", "REJECTED", { decision: "reject" });
      return log.result(id, "ask_human", { ok: true, output: { approved: false, by: "Ann Approver" } }, ALLOWED).succeed();
    },
    expected: [],
  },
  {
    name: "rejections and skipped loop calls are told once, not again as repeated failures",
    log: () => {
      const log = new RunLog("r1");
      for (let i = 0; i < 3; i++) {
        const id = log.call("shell", { command: `./deploy.sh prod --try ${i}` });
        log.decided(log.requested(id, "shell", "approve", `Run \`./deploy.sh prod --try ${i}\`?`), "approve", "REJECTED", {
          decision: "reject",
        });
        log.result(
          id,
          "shell",
          { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann Approver rejected this call" } },
          askedBy(2, "deploys"),
        );
      }
      for (let i = 0; i < 3; i++) {
        const id = log.call("shell", { command: "make" });
        log.decided(log.requested(id, "shell", "choose", LOOP_REPEAT), "choose", "APPROVED", { decision: "choose", optionId: "skip" });
        log.result(id, "shell", {
          ok: false,
          error: {
            code: "LOOP_SKIPPED",
            message: "A person skipped this call: it was the same shell call 4 times in a row. Try a different approach.",
          },
        });
      }
      return log.succeed();
    },
    expected: [1, 2, 3]
      .map((n) => `human_rejected human_rejected|shell|rule:team:deploys x${n}`)
      .concat([1, 2, 3].map((n) => `doom_loop doom_loop|shell|repeat x${n}`)),
  },
  {
    name: "a person approves with edited arguments",
    log: () => {
      const log = new RunLog("r1");
      const id = log.call("shell", { command: "rm -rf /workspace/*" });
      log.decided(log.requested(id, "shell", "approve", "Run `rm -rf /workspace/*`?"), "approve", "APPROVED", {
        decision: "approve",
        edited: true,
        comment: "only build/",
      });
      return log.result(id, "shell", { ok: true, output: { exitCode: 0, output: "" } }, askedBy(0, "destructive commands")).succeed();
    },
    expected: ["human_edited human_edited|shell|rule:team:destructive commands x1"],
  },
  {
    name: "takeovers of the terminal and the desktop (handbacks are not friction)",
    log: () =>
      new RunLog("r1")
        .shell("vim config.yml", 0, "")
        .takeover("terminal", "it is stuck in vim")
        .takeover("desktop")
        .takeover("terminal")
        .succeed(),
    expected: [
      "human_takeover human_takeover|terminal x1",
      "human_takeover human_takeover|desktop x1",
      "human_takeover human_takeover|terminal x2",
    ],
  },
  {
    name: "a run stopped by its budget",
    log: () =>
      new RunLog("r1")
        .shell("ls", 0, "")
        .failWith(
          "RUN_BUDGET_EXCEEDED",
          "The run has spent $0.5012 of its $0.50 budget; the next model call (about $0.0100) would exceed it",
        ),
    expected: ["budget_stop budget_stop|RUN_BUDGET_EXCEEDED x1"],
  },
  {
    name: "a run stopped by the call cap",
    log: () => new RunLog("r1").shell("ls", 0, "").failWith("STEP_LIMIT", "The run reached its limit of 40 model calls"),
    expected: ["budget_stop budget_stop|STEP_LIMIT x1"],
  },
  {
    name: "a run that failed for another reason is not a budget stop",
    log: () => new RunLog("r1").shell("ls", 0, "").failWith("MODEL_ERROR", "The provider returned 529"),
    expected: [],
  },
];

describe("mineRun over recorded runs", () => {
  it.each(cases)("$name", ({ log, expected }) => {
    expect(brief(mineRun(log()))).toEqual(expected);
  });

  it("gives the same observations fed one event at a time, each as soon as it becomes true", () => {
    for (const { log, expected } of cases) {
      const events = log();
      const miner = new RunFrictionMiner(events[0].runId);
      const seen: string[] = [];
      for (const e of events) {
        const obs = miner.observe([e]);
        seen.push(...brief(obs));
        for (const o of obs) expect(o.evidence.at(-1)!.seq).toBeLessThanOrEqual(e.seq);
      }
      expect(seen).toEqual(expected);
    }
  });
});

describe("what an observation says", () => {
  it("a rejection: the call's span, step, the person's comment and the rule", () => {
    const log = new RunLog("r1");
    log.shell("ls", 0, "deploy.sh\n");
    const id = log.call("shell", { command: "./deploy.sh prod" });
    const req = log.requested(id, "shell", "approve", "Run `./deploy.sh prod`?");
    log.decided(req, "approve", "REJECTED", { decision: "reject", comment: "Not on a Friday" });
    const decidedSeq = log.events.find((e) => e.type === "human.decided")!.seq;
    log.result(
      id,
      "shell",
      { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann Approver rejected this call: Not on a Friday" } },
      askedBy(2, "deploys need approval"),
    );
    expect(mineRun(log.succeed())).toEqual([
      {
        kind: "human_rejected",
        signature: "human_rejected|shell|rule:team:deploys need approval",
        title: "A person rejected a shell call (team:deploys need approval): Not on a Friday",
        tool: "shell",
        count: 1,
        evidence: [
          { runId: "r1", seq: decidedSeq, toolCallId: id, spanId: spanIdOf("r1", "tool", id), step: 2, excerpt: "Not on a Friday" },
        ],
      },
    ]);
  });

  it("a doom-loop pause: the request's title and the looping call", () => {
    const log = new RunLog("r1");
    const id = log.call("shell", { command: "npm test" });
    log.requested(id, "shell", "choose", LOOP_REPEAT);
    const seq = log.events.find((e) => e.type === "human.requested")!.seq;
    expect(mineRun(log.events)).toEqual([
      {
        kind: "doom_loop",
        signature: "doom_loop|shell|repeat",
        title: LOOP_REPEAT,
        tool: "shell",
        count: 1,
        evidence: [{ runId: "r1", seq, toolCallId: id, spanId: spanIdOf("r1", "tool", id), step: 1, excerpt: LOOP_REPEAT }],
      },
    ]);
  });

  it("a takeover and a budget stop: the event and the step, no span", () => {
    const log = new RunLog("r1").shell("ls", 0, "").takeover("terminal", "stuck in vim");
    const message = "The run has spent $0.5012 of its $0.50 budget; the next model call (about $0.0100) would exceed it";
    const events = log.failWith("RUN_BUDGET_EXCEEDED", message);
    const takeover = events.find((e) => e.type === "terminal.control")!.seq;
    expect(mineRun(events)).toEqual([
      {
        kind: "human_takeover",
        signature: "human_takeover|terminal",
        title: "A person took over the terminal: stuck in vim",
        count: 1,
        evidence: [{ runId: "r1", seq: takeover, step: 1, excerpt: "stuck in vim" }],
      },
      {
        kind: "budget_stop",
        signature: "budget_stop|RUN_BUDGET_EXCEEDED",
        title: `The run stopped at a limit (RUN_BUDGET_EXCEEDED): ${message}`,
        count: 1,
        evidence: [{ runId: "r1", seq: events.at(-1)!.seq, step: 1, excerpt: message }],
      },
    ]);
  });
});

describe("repeated failures", () => {
  const threeAwk = (runId: string) =>
    new RunLog(runId)
      .shell("awk -f sum.awk a.csv", 2, AWK_FAIL(3, "Smith, J"))
      .shell("ls", 0, "a.csv\n")
      .shell("awk -f sum.awk b.csv", 2, AWK_FAIL(7, "Lee, K"))
      .shell("awk -f sum.awk c.csv", 2, AWK_FAIL(9, "Ng, T"));

  it("emits the observation with the third failure's event, not before", () => {
    const events = threeAwk("r1").events;
    const third = events.findLast((e) => e.type === "tool.result")!;
    const miner = new RunFrictionMiner("r1");
    expect(miner.observe(events.filter((e) => e.seq < third.seq))).toEqual([]);
    expect(brief(miner.observe([third]))).toEqual(['repeated_failure repeated_failure|shell|exit:2|awk: line N: not a number: "*" x3']);
  });

  it("reports a threshold of 2 at the second failure", () => {
    const log = new RunLog("r1")
      .shell("awk -f sum.awk a.csv", 2, AWK_FAIL(3, "Smith, J"))
      .shell("awk -f sum.awk b.csv", 2, AWK_FAIL(7, "Lee, K"));
    expect(mineRun(log.events, { repeatThreshold: 2 }).map((o) => o.count)).toEqual([2]);
    expect(mineRun(log.events)).toEqual([]);
  });

  it("carries evidence for each failing call: its result's seq, call id, span, step and a short excerpt", () => {
    const events = threeAwk("r1").events;
    const [obs] = mineRun(events);
    const results = events.filter((e) => e.type === "tool.result" && (e.payload as { output: { exitCode: number } }).output.exitCode !== 0);
    expect(obs.title).toBe('shell failed 3 times (exit 2): awk: line N: not a number: "*"');
    expect(obs.tool).toBe("shell");
    expect(obs.evidence).toEqual(
      results.map((e) => {
        const p = e.payload as { toolCallId: string; step: number };
        return {
          runId: "r1",
          seq: e.seq,
          toolCallId: p.toolCallId,
          spanId: spanIdOf("r1", "tool", p.toolCallId),
          step: p.step,
          excerpt: expect.stringMatching(/^awk: line \d+: not a number: "/),
        };
      }),
    );
    expect(obs.evidence.map((e) => e.step)).toEqual([1, 3, 4]);
  });

  it("keeps the first nine failures and the latest as evidence, however many there are", () => {
    const log = new RunLog("r1");
    for (let i = 0; i < 40; i++) log.fail("read_file", { path: `f${i}.txt` }, "NOT_FOUND", `No such file: f${i}.txt`);
    const obs = mineRun(log.failWith("AGENT_STOPPED", "The agent stopped"));
    expect(obs.map((o) => o.count)).toEqual([3, 40]);
    expect(obs[1].evidence).toHaveLength(10);
    expect(obs[1].evidence.at(-1)!.excerpt).toBe("No such file: f39.txt");
    expect(obs[1].evidence[8].excerpt).toBe("No such file: f8.txt");
  });

  it("does not change an observation already returned when more failures come", () => {
    const log = new RunLog("r1");
    for (let i = 0; i < 3; i++) log.fail("read_file", { path: `f${i}` }, "NOT_FOUND", `No such file: f${i}`);
    const miner = new RunFrictionMiner("r1");
    const [first] = miner.observe(log.events);
    const snapshot = structuredClone(first);
    for (let i = 3; i < 20; i++) log.fail("read_file", { path: `f${i}` }, "NOT_FOUND", `No such file: f${i}`);
    miner.observe(log.failWith("AGENT_STOPPED", "stopped"));
    expect(first).toEqual(snapshot);
  });

  it("the signature is the tool and errorClass of the result", () => {
    const events = threeAwk("r1").events;
    const last = events.findLast((e) => e.type === "tool.result")!.payload as { ok: boolean; output: unknown };
    expect(mineRun(events)[0].signature).toBe(`repeated_failure|shell|${errorClass("shell", last)}`);
  });
});

describe("signatures group the same problem across runs", () => {
  /** Two runs of one problem: other ids, steps, temp folders, line numbers and names. */
  const runA = () => {
    const log = new RunLog("run-a");
    for (let i = 0; i < 3; i++) log.shell("python3 report.py", 1, PY_FAIL("/tmp/tmp.Xy12ab", 14 + i, `Smith ${i}`));
    log.fail("deploy_prod", {}, "UNKNOWN_TOOL", 'Tool "deploy_prod" is not available to this agent (available: shell)');
    const id = log.call("shell", { command: "./deploy.sh" });
    log.decided(log.requested(id, "shell", "approve", "Run `./deploy.sh`?"), "approve", "REJECTED", { decision: "reject", comment: "no" });
    log.result(
      id,
      "shell",
      { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann Approver rejected this call: no" } },
      askedBy(1, "deploys"),
    );
    return log.failWith(
      "TEAM_BUDGET_EXCEEDED",
      "Team Core has spent $100.00 of its $100.00 budget for 2026-03; the next model call (about $0.02) would exceed it",
    );
  };
  const runB = () => {
    const log = new RunLog("run-b-with-a-longer-id");
    log.ok("read_file", { path: "README.md" }, { content: "# Reports" });
    log.shell("ls /tmp", 0, "tmp.Qq77zz\n");
    for (let i = 0; i < 4; i++) log.shell("python3 report.py --all", 1, PY_FAIL("/tmp/tmp.Qq77zz", 90 + i * 7, `Lee, K${i}`));
    const id = log.call("shell", { command: "./deploy.sh --force" });
    log.decided(log.requested(id, "shell", "approve", "Run `./deploy.sh --force`?"), "approve", "REJECTED", { decision: "reject" });
    log.result(id, "shell", { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Bo rejected this call" } }, askedBy(1, "deploys"));
    log.fail(
      "deploy_prod",
      { env: "prod" },
      "UNKNOWN_TOOL",
      'Tool "deploy_prod" is not available to this agent (available: shell, read_file)',
    );
    return log.failWith(
      "TEAM_BUDGET_EXCEEDED",
      "Team Core has spent $130.10 of its $130.00 budget for 2026-04; the next model call (about $0.10) would exceed it",
    );
  };
  const signatures = (events: RunEventRecord[]) => [...new Set(mineRun(events).map((o) => o.signature))].sort();

  it("gives both runs the same signatures", () => {
    expect(signatures(runA())).toEqual(signatures(runB()));
    expect(signatures(runA())).toEqual([
      "budget_stop|TEAM_BUDGET_EXCEEDED",
      "human_rejected|shell|rule:team:deploys",
      'repeated_failure|shell|exit:1|ValueError: could not convert string to float: "*"',
      "unknown_tool|deploy_prod",
    ]);
  });

  it("puts no run id, step or temp path in a signature", () => {
    for (const events of [runA(), runB()]) {
      for (const o of mineRun(events)) {
        expect(o.signature).not.toContain(events[0].runId);
        expect(o.signature).not.toMatch(/tmp\.|Xy12ab|Qq77zz|line \d|Smith|Lee|call_|req_/);
      }
    }
  });
});

describe("feeding events", () => {
  const events = () => {
    const log = new RunLog("r1");
    for (let i = 0; i < 3; i++) log.fail("read_file", { path: `f${i}` }, "NOT_FOUND", `No such file: f${i}`);
    log.fail("nope", {}, "UNKNOWN_TOOL", 'Tool "nope" is not available to this agent (available: read_file)');
    return log.succeed();
  };
  const expected = brief(mineRun(events()));

  it("ignores events fed twice", () => {
    const miner = new RunFrictionMiner("r1");
    const seen: FrictionObservation[] = [];
    for (const e of events()) seen.push(...miner.observe([e]), ...miner.observe([e]));
    seen.push(...miner.observe(events()));
    expect(brief(seen)).toEqual(expected);
    expect(expected).toHaveLength(2);
  });

  it("ignores events older than one already seen", () => {
    const all = events();
    const miner = new RunFrictionMiner("r1");
    const late = all.filter((e) => e.type === "tool.result")[1];
    expect(brief(miner.observe(all.filter((e) => e !== late)))).toEqual(["unknown_tool unknown_tool|nope x1"]);
    expect(miner.observe([late])).toEqual([]);
  });

  it("puts a batch in seq order before reading it", () => {
    expect(brief(mineRun([...events()].reverse()))).toEqual(expected);
  });

  it("ignores events of another run", () => {
    const other = events().map((e) => ({ ...e, runId: "r2", seq: e.seq + 1000 }));
    expect(new RunFrictionMiner("r1").observe(other)).toEqual([]);
  });

  it("refuses a threshold that is not a whole number of at least 1", () => {
    for (const repeatThreshold of [0, -1, 2.5, Number.NaN]) {
      expect(() => new RunFrictionMiner("r1", { repeatThreshold })).toThrow(/repeatThreshold must be a whole number of at least 1/);
    }
  });

  it("reads a malformed payload without throwing or reporting", () => {
    const e = (seq: number, type: RunEventRecord["type"], payload: unknown): RunEventRecord => ({
      runId: "r1",
      seq,
      type,
      actor: null,
      payload,
      createdAt: new Date(0),
    });
    const junk = [
      e(1, "tool.result", null),
      e(2, "tool.result", { ok: true, tool: "shell", output: "text" }),
      e(3, "human.decided", {}),
      e(4, "run.state", { to: 3 }),
      e(5, "human.requested", 7),
    ];
    expect(mineRun(junk)).toEqual([]);
  });
});

describe("hostile output", () => {
  const MB = 1024 * 1024;

  it("classes a 1 MB error by its start, and keeps excerpts short", () => {
    const huge = "line 3: not a number: " + '"Smith, J" '.repeat(MB / 11);
    const cls = errorClass("read_file", { ok: false, error: { code: "BAD", message: huge } })!;
    expect(cls.startsWith('BAD|line N: not a number: "*" "*"')).toBe(true);
    expect(cls.length).toBeLessThanOrEqual(4 + 160);
    const log = new RunLog("r1");
    for (let i = 0; i < 3; i++) log.fail("read_file", { path: "x" }, "BAD", huge);
    const [obs] = mineRun(log.events);
    expect(obs.signature).toBe(`repeated_failure|read_file|${cls}`);
    for (const ev of obs.evidence) expect(ev.excerpt!.length).toBeLessThanOrEqual(200);
  });

  it("bounds a 1 MB tool name the agent made up", () => {
    const name = "deploy|" + "z".repeat(MB);
    const [obs] = mineRun(new RunLog("r1").fail(name, {}, "UNKNOWN_TOOL", `Tool "${name}" is not available to this agent`).succeed());
    expect(obs.signature).toBe(`unknown_tool|deploy_${"z".repeat(57)}`);
    expect(obs.tool).toBe(`deploy_${"z".repeat(57)}`);
    expect(obs.title.length).toBeLessThan(200);
    expect(obs.evidence[0].excerpt!.length).toBeLessThanOrEqual(200);
  });

  /** What a class can be at most: its code, a bar, and CLASS_CHARS of message. */
  const cut = (cls: string) => cls.slice(0, cls.indexOf("|") + 1 + 160).trimEnd();
  it.each([
    ["a shell command printing one 1 MB line of letters", "shell", "x".repeat(MB), "exit:1|<blob>"],
    ["a shell command printing 1 MB of quotes", "shell", "'".repeat(MB), cut("exit:1|" + '"*"'.repeat(60))],
    ["a shell command printing 1 MB of mixed quotes", "shell", "'\"`".repeat(MB / 3), cut("exit:1|" + '"*"'.repeat(60))],
    [
      "a shell command printing 1 MB of newlines, then the error",
      "shell",
      "\n".repeat(MB) + "fatal: not a git repository\n",
      "exit:1|fatal: not a git repository",
    ],
    ["a message of 1 MB of lines with one unmatched quote each", "read_file", "'\n".repeat(MB / 2), cut("BAD|" + "' ".repeat(100))],
    ["a message of one quote and then 1 MB without its partner", "read_file", "'" + "ab ".repeat(MB / 3), cut("BAD|'" + "ab ".repeat(100))],
    ["a message of 1 MB of colour codes", "read_file", "\u001b[31m".repeat(MB / 5) + "boom", "BAD|"],
    ["a message of 1 MB of digits and dots", "read_file", "1.".repeat(MB / 2), "BAD|<blob>"],
  ])("%s", (_name, tool, text, expected) => {
    const result =
      tool === "shell" ? { ok: true, output: { exitCode: 1, output: text } } : { ok: false, error: { code: "BAD", message: text } };
    expect(errorClass(tool, result)).toBe(expected);
  });
});
