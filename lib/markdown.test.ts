import { describe, expect, it } from "vitest";
import { codeSpans, parseInline, parseMarkdown, safeExternalHref, safeHref, type Block, type Inline } from "./markdown";

describe("the instructions preview's Markdown", () => {
  it("reads headings, paragraphs, lists, quotes, rules and fenced code", () => {
    const blocks = parseMarkdown(
      [
        "# Role",
        "",
        "You write code",
        "carefully.",
        "",
        "- plan",
        "- test",
        "  and commit",
        "",
        "2. two",
        "3. three",
        "",
        "> quoted",
        "",
        "---",
        "",
        "```ts",
        "const a = 1;",
        "",
        "```",
      ].join("\n"),
    );
    expect(blocks).toEqual([
      { kind: "heading", level: 1, children: [{ kind: "text", text: "Role" }] },
      { kind: "paragraph", children: [{ kind: "text", text: "You write code carefully." }] },
      { kind: "list", ordered: false, start: 1, items: [[{ kind: "text", text: "plan" }], [{ kind: "text", text: "test and commit" }]] },
      { kind: "list", ordered: true, start: 2, items: [[{ kind: "text", text: "two" }], [{ kind: "text", text: "three" }]] },
      { kind: "quote", children: [{ kind: "text", text: "quoted" }] },
      { kind: "rule" },
      { kind: "code", lang: "ts", text: "const a = 1;\n" },
    ]);
  });

  it("a heading or list right after a paragraph line starts its own block", () => {
    expect(parseMarkdown("text\n## Next\n- item").map((b) => b.kind)).toEqual(["paragraph", "heading", "list"]);
  });

  it("an unclosed fence runs to the end of the text", () => {
    expect(parseMarkdown("```\nrm -rf /")).toEqual([{ kind: "code", lang: "", text: "rm -rf /" }]);
  });

  it("reads code spans, bold, italics and links", () => {
    expect(parseInline("Run `npm test` **now**, *then* [docs](https://example.com/a)")).toEqual([
      { kind: "text", text: "Run " },
      { kind: "code", text: "npm test" },
      { kind: "text", text: " " },
      { kind: "strong", children: [{ kind: "text", text: "now" }] },
      { kind: "text", text: ", " },
      { kind: "em", children: [{ kind: "text", text: "then" }] },
      { kind: "text", text: " " },
      { kind: "link", href: "https://example.com/a", children: [{ kind: "text", text: "docs" }] },
    ]);
  });

  it("leaves arithmetic and snake_case names alone", () => {
    expect(parseInline("2 * 3 * 4 and read_file_now")).toEqual([{ kind: "text", text: "2 * 3 * 4 and read_file_now" }]);
  });

  it("keeps HTML as text: nothing in the source becomes markup", () => {
    const blocks = parseMarkdown('<script>alert(1)</script> <img src=x onerror="alert(1)">');
    expect(blocks).toEqual([
      { kind: "paragraph", children: [{ kind: "text", text: '<script>alert(1)</script> <img src=x onerror="alert(1)">' }] },
    ]);
  });

  it("drops links that could run script, keeping their text", () => {
    expect(parseInline("[click](javascript:alert(1))")).toEqual([{ kind: "text", text: "[click](javascript:alert(1))" }]);
    expect(safeHref("JavaScript:alert(1)")).toBeNull();
    expect(safeHref("data:text/html,x")).toBeNull();
    expect(safeHref("//evil.example")).toBeNull();
    expect(safeHref("/runs/abc")).toBe("/runs/abc");
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c");
  });

  it("a backslash escapes a mark", () => {
    expect(parseInline("\\*not em\\*")).toEqual([{ kind: "text", text: "*not em*" }]);
  });
});

/** Every node of the parsed text, depth first. */
function nodes(blocks: Block[]): Array<Block | Inline> {
  const out: Array<Block | Inline> = [];
  const walk = (n: Block | Inline) => {
    out.push(n);
    if ("children" in n) n.children.forEach(walk);
    if (n.kind === "list") n.items.flat().forEach(walk);
  };
  blocks.forEach(walk);
  return out;
}
const links = (text: string) => nodes(parseMarkdown(text, { external: true })).filter((n) => n.kind === "link");
const AGENT = { external: true };

describe("an agent's text as Markdown", () => {
  it("shows a <script> as the text it is", () => {
    expect(parseMarkdown("Done. <script>alert(document.cookie)</script>", AGENT)).toEqual([
      { kind: "paragraph", children: [{ kind: "text", text: "Done. <script>alert(document.cookie)</script>" }] },
    ]);
  });

  it("javascript:, data: and vbscript: addresses are never links, however they are written", () => {
    for (const href of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      " javascript:alert(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
      "vbscript:msgbox(1)",
      "//evil.example/x",
      "/runs/abc",
      "#top",
    ]) {
      expect(links(`[click](${href})`), href).toEqual([]);
      expect(links(`![x](${href})`), href).toEqual([]);
    }
    expect(safeExternalHref("javascript:alert(1)")).toBeNull();
    expect(safeExternalHref("https://example.com")).toBe("https://example.com");
    expect(safeExternalHref("mailto:a@b.c")).toBe("mailto:a@b.c");
  });

  it("keeps http(s) and mailto links", () => {
    expect(links("[docs](https://example.com/a) and [mail](mailto:ops@example.com)").map((l) => l.kind === "link" && l.href)).toEqual([
      "https://example.com/a",
      "mailto:ops@example.com",
    ]);
  });

  it("image syntax becomes a link to the image, never an image", () => {
    const blocks = parseMarkdown("See ![the chart](https://evil.example/img.png)", AGENT);
    expect(blocks).toEqual([
      {
        kind: "paragraph",
        children: [
          { kind: "text", text: "See " },
          { kind: "link", href: "https://evil.example/img.png", children: [{ kind: "text", text: "the chart" }] },
        ],
      },
    ]);
    expect(nodes(blocks).map((n) => n.kind)).not.toContain("image");
  });

  it("reads lists and code spans in agent text", () => {
    expect(parseMarkdown("Next:\n- run `npm test`\n- commit", AGENT)).toEqual([
      { kind: "paragraph", children: [{ kind: "text", text: "Next:" }] },
      {
        kind: "list",
        ordered: false,
        start: 1,
        items: [
          [
            { kind: "text", text: "run " },
            { kind: "code", text: "npm test" },
          ],
          [{ kind: "text", text: "commit" }],
        ],
      },
    ]);
  });

  it("unpaired backticks stay text; a longer run closes only on its own length", () => {
    expect(parseInline("a ` b")).toEqual([{ kind: "text", text: "a ` b" }]);
    expect(parseInline("``a ` b``")).toEqual([{ kind: "code", text: "a ` b" }]);
  });

  it("a heading keeps a # that is part of a word and drops closing #s", () => {
    expect(parseMarkdown("## Port to C#")).toEqual([{ kind: "heading", level: 2, children: [{ kind: "text", text: "Port to C#" }] }]);
    expect(parseMarkdown("## Plan ##")).toEqual([{ kind: "heading", level: 2, children: [{ kind: "text", text: "Plan" }] }]);
  });

  // Each of these took from seconds to minutes with the old patterns (they backtracked over the whole line).
  const N = 100_000;
  const HOSTILE: Record<string, string> = {
    "open brackets": "[".repeat(N),
    "unclosed links": "[a](".repeat(N / 4),
    "unclosed images": "![".repeat(N / 2),
    "unclosed titles": '[a](u "'.repeat(N / 7),
    "a heading of spaces": `# a${" ".repeat(N)}x`,
    "a heading of hashes": `# ${"# ".repeat(N / 2)}x`,
    "backtick runs": "` ``".repeat(N / 4),
    "open strong marks": "**a*".repeat(N / 4),
    underscores: "_a".repeat(N / 2),
    "nested emphasis": "*_**[".repeat(N / 5),
  };
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`reads a 100 KB line of ${name} without stalling`, { timeout: 5_000 }, () => {
      const blocks = parseMarkdown(text, AGENT);
      const chars = nodes(blocks).reduce((n, b) => n + ("text" in b ? b.text.length : 0), 0);
      expect(blocks.length).toBeGreaterThan(0);
      expect(chars).toBeLessThanOrEqual(text.length);
    });
  }
});

describe("code spans in titles", () => {
  it("marks paired backticks as code and leaves the rest as text", () => {
    expect(codeSpans("Run `./deploy.sh production`?")).toEqual([
      { code: false, text: "Run " },
      { code: true, text: "./deploy.sh production" },
      { code: false, text: "?" },
    ]);
    expect(codeSpans("`a` and `b`")).toEqual([
      { code: true, text: "a" },
      { code: false, text: " and " },
      { code: true, text: "b" },
    ]);
  });

  it("an unpaired backtick stays as typed, without hiding the pairs around it", () => {
    expect(codeSpans("it's 5` long")).toEqual([{ code: false, text: "it's 5` long" }]);
    expect(codeSpans("`x` then `")).toEqual([
      { code: true, text: "x" },
      { code: false, text: " then `" },
    ]);
    expect(codeSpans("")).toEqual([]);
  });
});
