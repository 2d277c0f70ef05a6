// Titles mark commands with backticks ("Run `./deploy.sh production`?"); show them as code.
import { codeSpans } from "@/lib/markdown";

export function InlineCode({ text }: { text: string }) {
  return <>{codeSpans(text).map((part, i) => (part.code ? <code key={i}>{part.text}</code> : part.text))}</>;
}
