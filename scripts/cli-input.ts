// The CLI's standard input, read through one object: the tests run the CLI's
// commands inside their own process and give them an input of their own
// (test/helpers/cli.ts), as a pipe would.
import fs from "node:fs";
import type { RestPaths } from "../lib/rest-client";

export const stdin = {
  /** Everything on standard input, as text (waits for its end). */
  read: (): string => fs.readFileSync(0, "utf8"),
  /** Whether standard input is a terminal: nothing was piped in. */
  isTTY: (): boolean => Boolean(process.stdin.isTTY),
};

/** A file's text; "-" reads standard input instead. */
export function readInput(file: string): string {
  return file === "-" ? stdin.read() : fs.readFileSync(file, "utf8");
}

/**
 * A word or JSON the person gave for a field the server checks (a role, a
 * state, event types, a scenario), passed on as it is and typed as that field,
 * so a wrong one gets the server's own answer ("400 INVALID_INPUT: role: …"),
 * which names what it takes. The one place the CLI takes the person's word for
 * a type.
 */
export const given = <T>(value: unknown): T => value as T;

type Operation<P extends keyof RestPaths, M extends keyof RestPaths[P]> = RestPaths[P][M];
/** An operation's query: Query<"/api/v1/memories", "get">["kind"]. */
export type Query<P extends keyof RestPaths, M extends keyof RestPaths[P]> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** An operation's JSON body: Body<"/api/v1/runs", "post">["scenario"]. */
export type Body<P extends keyof RestPaths, M extends keyof RestPaths[P]> =
  Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
