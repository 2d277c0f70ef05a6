// demo-browser: orders from Rein's demo shop on a desktop (T2) what the goal
// names from its catalogue ("three Rein mugs"), or two Rein stickers when it
// names nothing the shop sells, and says which. Only catalogue names and
// counts from 1 to 10 are taken from the goal; none of its text is typed.
import { DEMO_SHOP_CATALOGUE, MAX_ITEM_COUNT } from "@/server/demo-site";
import type { Scenario } from "../../types";
import { describeLine, orderMessage, parseOrder, type OrderLine } from "./goal";

export const DEMO_BROWSER_GOAL = "Order two Rein stickers from the demo shop";
const NAME = "Ada Lovelace";
const DEFAULT_ORDER: OrderLine[] = [{ item: DEMO_SHOP_CATALOGUE[0], count: 2 }];

function orderNote(message: string): string {
  return `# Order

- Shop: Rein's demo site, /demo-site/form
- Name: ${NAME}
- Order: ${message}
`;
}

function readingOf(goal: string): { lines: OrderLine[]; note: string } {
  const found = parseOrder(goal);
  if (!found.length) {
    const sold = DEMO_SHOP_CATALOGUE.map((i) => i.name).join(", ");
    return {
      lines: DEFAULT_ORDER,
      note: `Your goal names nothing the demo shop sells (${sold}), so I'm ordering the default: ${describeLine(DEFAULT_ORDER[0]).toLowerCase()}. `,
    };
  }
  const refused = found.filter((l) => l.refusedCount !== undefined);
  const note = refused.length
    ? `The shop takes 1 to ${MAX_ITEM_COUNT} of an item per order, so I'm not asking for ${refused.map((l) => `${l.refusedCount} ${l.item.plural}`).join(" or ")}; the order names ${refused.length === 1 ? "that item" : "those items"} without a number. `
    : "";
  return { lines: found, note };
}

export function demoBrowser(goal: string): Scenario {
  const { lines, note } = readingOf(goal);
  const message = orderMessage(lines);
  return {
    // A refused upgrade or a failed browser step ends the run with its reason instead of claiming success.
    stopOnError: true,
    turns: [
      {
        text: `${note}I'll note the order in the workspace first: ${message.replace(/, please$/, "")}.`,
        toolCalls: [{ tool: "write_file", args: { path: "ORDER.md", content: orderNote(message) } }],
      },
      {
        text: "The shop is a web page, so I need a browser: asking to move to the desktop tier (T2).",
        toolCalls: [
          {
            tool: "upgrade_tier",
            args: { tier: "T2", reason: "The sticker shop is a web form; filling it in needs a browser on a desktop." },
          },
        ],
      },
      {
        text: "On the desktop now. Opening the shop's order form.",
        toolCalls: [{ tool: "browser_navigate", args: { url: "/demo-site/form" } }],
      },
      {
        text: "Filling in the form from ORDER.md and sending it.",
        toolCalls: [
          { tool: "browser_type", args: { selector: "#name", text: NAME } },
          { tool: "browser_type", args: { selector: "#message", text: message } },
          { tool: "browser_click", args: { selector: "#submit" } },
        ],
      },
      {
        text: "Reading the shop's answer.",
        toolCalls: [{ tool: "browser_read", args: { mode: "text" } }],
      },
      {
        text:
          "The shop's answer is above. I'll keep the page open for a minute: to confirm the order yourself, take over in the Desktop tab, " +
          "press “Confirm as a person” on the page, then hand back.",
        toolCalls: [{ tool: "browser_wait", args: { ms: 60_000 } }],
      },
      {
        text: "Reading the page again to see whether a person confirmed the order.",
        toolCalls: [{ tool: "browser_read", args: { mode: "text" } }],
      },
      {
        text: `Done: the order (${message.replace(/, please$/, "")}) was sent through the shop's form on the desktop; the last read of the page says whether a person confirmed it.`,
      },
    ],
  };
}

export const DEMO_BROWSER: Scenario = demoBrowser(DEMO_BROWSER_GOAL);
