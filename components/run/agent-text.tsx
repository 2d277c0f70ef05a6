// An agent's (or model's) text as Markdown: lib/markdown's blocks rendered as
// React elements. Nothing in the text becomes HTML; links open in a new tab,
// without the page's opener or referrer, and only to http(s) or mailto; image
// syntax is a link to the image, so nothing is loaded from where the text points.
import { Fragment, useMemo, type ReactNode } from "react";
import { parseMarkdown, type Block, type Inline } from "@/lib/markdown";
import styles from "./agent-text.module.css";

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
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow" title={n.href}>
            {inline(n.children)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number): ReactNode {
  switch (b.kind) {
    case "heading": {
      // Headings inside a timeline card read as strong lines, not page headings.
      return (
        <p key={i} className={styles.heading}>
          <strong>{inline(b.children)}</strong>
        </p>
      );
    }
    case "paragraph":
      return <p key={i}>{inline(b.children)}</p>;
    case "quote":
      return <blockquote key={i}>{inline(b.children)}</blockquote>;
    case "rule":
      return <hr key={i} />;
    case "code":
      return (
        <pre key={i} className="code-block light">
          <code>{b.text}</code>
        </pre>
      );
    case "list": {
      const items = b.items.map((item, j) => <li key={j}>{inline(item)}</li>);
      return b.ordered ? <ol key={i} start={b.start}>{items}</ol> : <ul key={i}>{items}</ul>;
    }
  }
}

export function AgentText({ text, testId }: { text: string; testId?: string }) {
  const blocks = useMemo(() => parseMarkdown(text, { external: true }), [text]);
  return (
    <div className={`turn-text ${styles.text}`} data-testid={testId}>
      {blocks.map(block)}
    </div>
  );
}
