import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref } from "./markdown";

describe("the instructions preview's Markdown", () => {
  it("reads headings, paragraphs, lists, quotes, rules and fenced code", () => {
    const blocks = parseMarkdown(
      ["# Role", "", "You write code", "carefully.", "", "- plan", "- test", "  and commit", "", "2. two", "3. three", "", "> quoted", "", "---", "", "```ts", "const a = 1;", "", "```"].join("\n"),
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
    expect(blocks).toEqual([{ kind: "paragraph", children: [{ kind: "text", text: '<script>alert(1)</script> <img src=x onerror="alert(1)">' }] }]);
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
