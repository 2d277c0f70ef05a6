// The instructions as they read: lib/markdown's blocks rendered as React
// elements (text stays text; no HTML from the source reaches the page).
import { useMemo, type ReactNode } from "react";
import { renderInline } from "@/components/markdown-inline";
import { parseMarkdown, type Block } from "@/lib/markdown";
import styles from "./agents.module.css";

function block(b: Block, i: number): ReactNode {
  switch (b.kind) {
    case "heading": {
      const H = `h${b.level}` as const;
      return <H key={i}>{renderInline(b.children)}</H>;
    }
    case "paragraph":
      return <p key={i}>{renderInline(b.children)}</p>;
    case "quote":
      return <blockquote key={i}>{renderInline(b.children)}</blockquote>;
    case "rule":
      return <hr key={i} />;
    case "code":
      return (
        <pre key={i}>
          <code>{b.text}</code>
        </pre>
      );
    case "list": {
      const items = b.items.map((item, j) => <li key={j}>{renderInline(item)}</li>);
      return b.ordered ? (
        <ol key={i} start={b.start}>
          {items}
        </ol>
      ) : (
        <ul key={i}>{items}</ul>
      );
    }
  }
}

export function MarkdownPreview({ source }: { source: string }) {
  const blocks = useMemo(() => parseMarkdown(source), [source]);
  return (
    <div className={styles.preview} data-testid="instructions-preview" aria-label="Instructions preview" tabIndex={0}>
      {blocks.length ? blocks.map(block) : <p className="muted">Nothing to preview yet.</p>}
    </div>
  );
}
