// Request titles mark commands with backticks ("Run `./deploy.sh production`?"); show them as code.
export function InlineCode({ text }: { text: string }) {
  const parts = text.split("`");
  // An odd number of backticks: not markup, show the text as it is.
  if (parts.length < 3 || parts.length % 2 === 0) return <>{text}</>;
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}
