// An agent's (or model's) text as Markdown: lib/markdown's blocks rendered as
// React elements. Nothing in the text becomes HTML; links open in a new tab,
// without the page's opener or referrer, and only to http(s) or mailto; image
// syntax is a link to the image, so nothing is loaded from where the text points.
import { useMemo, type ReactNode } from "react";
import { renderInline } from "@/components/markdown-inline";
import { parseMarkdown, type Block } from "@/lib/markdown";
import styles from "./agent-text.module.css";

function block(b: Block, i: number): ReactNode {
  switch (b.kind) {
    case "heading": {
      // Headings inside a timeline card read as strong lines, not page headings.
      return (
        <p key={i} className={styles.heading}>
          <strong>{renderInline(b.children)}</strong>
        </p>
      );
    }
    case "paragraph":
      return <p key={i}>{renderInline(b.children)}</p>;
    case "quote":
      return <blockquote key={i}>{renderInline(b.children)}</blockquote>;
    case "rule":
      return <hr key={i} />;
    case "code":
      return (
        <pre key={i} className="code-block light">
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

export function AgentText({ text, testId }: { text: string; testId?: string }) {
  const blocks = useMemo(() => parseMarkdown(text, { external: true }), [text]);
  return (
    <div className={`turn-text ${styles.text}`} data-testid={testId}>
      {blocks.map(block)}
    </div>
  );
}
