// What the demo scripts take from a run's goal, read conservatively: only
// names from a fixed list (the demo shop's catalogue, known environment
// names) and plain numbers. Nothing from the goal reaches a command or a page
// as typed; when nothing matches, the demo says so and plays its default.
import { DEMO_SHOP_CATALOGUE, MAX_ITEM_COUNT, type CatalogueItem } from "@/server/demo-site";
import { parseSessionSeed } from "../../person-message";
import type { Message } from "../../types";

/** Only the start of a goal is read (the patterns below are linear, but a goal can be long). */
const MAX_GOAL_CHARS = 2_000;

/** The run's goal: its first user turn, or the Goal section of a fresh session's seed. */
export function goalOf(prompt: readonly Message[]): string {
  const first = prompt.find((m) => m.role === "user");
  if (!first || first.role !== "user") return "";
  if (parseSessionSeed(first)) {
    const m = /\n\nGoal:\n([\s\S]*?)(?:\n\n|$)/.exec(first.content.slice(0, MAX_GOAL_CHARS * 2));
    return m ? m[1] : "";
  }
  return first.content;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const COUNT_NAMES = ["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"];

export interface OrderLine {
  item: CatalogueItem;
  /** null: the goal named the item without a count the shop takes. */
  count: number | null;
  /** A count the goal gave that the shop does not take (0, 500). */
  refusedCount?: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/** The catalogue items a goal names, in the catalogue's order, with their counts. */
export function parseOrder(goal: string): OrderLine[] {
  const text = goal.slice(0, MAX_GOAL_CHARS).toLowerCase();
  const lines: OrderLine[] = [];
  for (const item of DEMO_SHOP_CATALOGUE) {
    const words = [...item.words]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join("|");
    // "3 mugs", "three Rein mugs", "a mug", or just "mugs"; whole words only.
    const re = new RegExp(
      `(?:^|[^a-z0-9-])(?:(\\d{1,6}|${Object.keys(NUMBER_WORDS).join("|")})\\s+)?(?:rein\\s+)?(?:${words})(?![a-z0-9-])`,
    );
    const m = re.exec(text);
    if (!m) continue;
    const said = m[1];
    if (said === undefined) lines.push({ item, count: null });
    else {
      const n = /^\d+$/.test(said) ? Number(said) : NUMBER_WORDS[said];
      lines.push(n >= 1 && n <= MAX_ITEM_COUNT ? { item, count: n } : { item, count: null, refusedCount: said });
    }
  }
  return lines;
}

/** "Two Rein stickers", "One Rein mug", "Rein mugs" (no count). */
export function describeLine(line: OrderLine): string {
  if (line.count === null) return line.item.plural;
  return `${COUNT_NAMES[line.count]} ${line.count === 1 ? line.item.name : line.item.plural}`;
}

/** The order's text for the shop's form: "Two Rein stickers and One Rein mug, please" reads as a list. */
export function orderMessage(lines: OrderLine[]): string {
  const parts = lines.map((l, i) => (i === 0 ? describeLine(l) : describeLine(l).replace(/^[A-Z]/, (c) => c.toLowerCase())));
  const joined = parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
  return `${joined}, please`;
}

/** Environments demo-deploy knows; another word in a goal is never passed to the script. */
export const DEPLOY_ENVIRONMENTS = ["production", "staging", "development", "qa"] as const;
export type DeployEnvironment = (typeof DEPLOY_ENVIRONMENTS)[number];
const ENVIRONMENT_ALIASES: Record<string, DeployEnvironment> = {
  prod: "production",
  live: "production",
  stage: "staging",
  dev: "development",
};

export interface DeployTarget {
  /** The one environment the goal names, or null. */
  environment: DeployEnvironment | null;
  /** Every environment it names (more than one: the goal is ambiguous). */
  named: DeployEnvironment[];
  /** A version like 1.4.0 the goal names, or null. */
  version: string | null;
}

export function parseDeploy(goal: string): DeployTarget {
  const text = goal.slice(0, MAX_GOAL_CHARS).toLowerCase();
  const named: DeployEnvironment[] = [];
  for (const m of text.matchAll(/[a-z]+/g)) {
    const env = (DEPLOY_ENVIRONMENTS as readonly string[]).includes(m[0]) ? (m[0] as DeployEnvironment) : ENVIRONMENT_ALIASES[m[0]];
    if (env && !named.includes(env)) named.push(env);
  }
  const version = /(?:^|[^\w.])v?(\d{1,4}\.\d{1,4}\.\d{1,4})(?![\w.])/.exec(text)?.[1] ?? null;
  return { environment: named.length === 1 ? named[0] : null, named, version };
}
