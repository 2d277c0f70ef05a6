// Markdown's inline parts (lib/markdown) as React elements, for every place
// that shows Markdown: text stays text, and a link opens in a new tab without
// the page's opener or referrer (lib/markdown keeps only http(s) and mailto).
import { Fragment, type ReactNode } from "react";
import type { Inline } from "@/lib/markdown";

export function renderInline(nodes: Inline[]): ReactNode {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case "text":
        return <Fragment key={i}>{n.text}</Fragment>;
      case "code":
        return <code key={i}>{n.text}</code>;
      case "strong":
        return <strong key={i}>{renderInline(n.children)}</strong>;
      case "em":
        return <em key={i}>{renderInline(n.children)}</em>;
      case "link":
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow" title={n.href}>
            {renderInline(n.children)}
          </a>
        );
    }
  });
}
