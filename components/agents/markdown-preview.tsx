// The instructions as they read: lib/markdown's blocks rendered as React
// elements (text stays text; no HTML from the source reaches the page).
import { Fragment, useMemo, type ReactNode } from "react";
import { parseMarkdown, type Block, type Inline } from "@/lib/markdown";
import styles from "./agents.module.css";

function inline(nodes: Inline[]): ReactNode {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case "text":
        return <Fragment key={i}>{n.text}</Fragment>;
      case "code":
        return <code key={i}>{n.text}</code>;
      case "strong":
        return <strong key={i}>{inline(n.children)}</strong>;
      case "em":
        return <em key={i}>{inline(n.children)}</em>;
      case "link":
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
            {inline(n.children)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number): ReactNode {
  switch (b.kind) {
    case "heading": {
      const H = `h${b.level}` as const;
      return <H key={i}>{inline(b.children)}</H>;
    }
    case "paragraph":
      return <p key={i}>{inline(b.children)}</p>;
    case "quote":
      return <blockquote key={i}>{inline(b.children)}</blockquote>;
    case "rule":
      return <hr key={i} />;
    case "code":
      return (
        <pre key={i}>
          <code>{b.text}</code>
        </pre>
      );
    case "list": {
      const items = b.items.map((item, j) => <li key={j}>{inline(item)}</li>);
      return b.ordered ? <ol key={i} start={b.start}>{items}</ol> : <ul key={i}>{items}</ul>;
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
