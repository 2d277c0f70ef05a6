// Consent (docs/devices.md#consent): before a run uses this computer, its
// owner is asked in the agent's terminal (y/N, no answer in time is no),
// unless the owner told Rein that runs of that team need no question.
import readline from "node:readline";
import type { ConsentParams, ConsentResult } from "../../../lib/device-protocol";
import { say } from "./log";

const ANSWER_MS = 60_000;
const MAX_WAITING = 4;

export class ConsentDesk {
  private autoTeams = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private lines: readline.Interface | null = null;
  private readonly answers: Array<(line: string) => void> = [];

  setAutoTeams(ids: string[]): void {
    this.autoTeams = new Set(ids);
  }

  private input(): readline.Interface {
    if (!this.lines) {
      this.lines = readline.createInterface({ input: process.stdin, terminal: false });
      this.lines.on("line", (line) => this.answers.shift()?.(line));
      // No terminal to ask in (stdin closed): every later question is answered no.
      this.lines.on("close", () => {
        while (this.answers.length) this.answers.shift()!("");
      });
    }
    return this.lines;
  }

  async ask(q: ConsentParams): Promise<ConsentResult> {
    if (this.autoTeams.has(q.team.id)) {
      say(
        `Run ${q.runId} (${q.agent}, team ${q.team.name}, asked by ${q.requester}) may use this device: you chose auto-consent for that team`,
      );
      return { granted: true, by: "auto" };
    }
    if (this.waiting >= MAX_WAITING) throw new Error(`${MAX_WAITING} questions are already waiting for your answer here`);
    this.waiting++;
    const turn = this.chain.then(() => this.question(q));
    this.chain = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      this.waiting--;
    }
  }

  private question(q: ConsentParams): Promise<ConsentResult> {
    const lines = this.input();
    say(`Rein asks to use this device for run ${q.runId}`);
    say(`  agent: ${q.agent}; team: ${q.team.name}; asked by: ${q.requester}`);
    say(`  goal: ${q.goal.slice(0, 500)}`);
    process.stdout.write(`Allow it? [y/N] (no answer in ${ANSWER_MS / 1000} s is no) `);
    return new Promise((resolve) => {
      const done = (line: string) => {
        clearTimeout(timer);
        const granted = /^\s*y(es)?\s*$/i.test(line);
        say(granted ? `You allowed run ${q.runId}` : `You did not allow run ${q.runId}`);
        resolve({ granted, by: "owner" });
      };
      const timer = setTimeout(() => {
        const i = this.answers.indexOf(done);
        if (i >= 0) this.answers.splice(i, 1);
        process.stdout.write("\n");
        say(`No answer in time: run ${q.runId} is not allowed`);
        resolve({ granted: false, by: "owner" });
      }, ANSWER_MS);
      this.answers.push(done);
      lines.resume();
    });
  }

  close(): void {
    this.lines?.close();
  }
}
