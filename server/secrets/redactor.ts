// The secret values this process knows (those handed to tools, the provider
// keys), and their removal from whatever is bound for a tool result, the event
// log, a trace, a log line or a prompt
// (docs/secrets.md#redaction-where-the-value-is-hidden).
import { redactor } from "./redact";
import type { NamedSecret } from "./types";

export class SecretRedactor {
  /** name + NUL + value: a replaced value stays known, so text quoting the old one is still caught. */
  private readonly known = new Map<string, NamedSecret>();
  private compiled: ((text: string) => string) | null = null;

  remember(secrets: Iterable<NamedSecret>): void {
    for (const s of secrets) {
      const key = `${s.name}\0${s.value}`;
      if (!s.value || this.known.has(key)) continue;
      this.known.set(key, { name: s.name, value: s.value });
      this.compiled = null;
    }
  }

  /** How many values it knows (0: redaction changes nothing and costs nothing). */
  get size(): number {
    return this.known.size;
  }

  text(text: string): string {
    if (this.known.size === 0) return text;
    this.compiled ??= redactor(this.known.values());
    return this.compiled(text);
  }

  /** A JSON-like value with every string (and key) redacted; the same value when nothing is known. */
  value<T>(value: T): T {
    if (this.known.size === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown, depth = 0): unknown {
    if (typeof value === "string") return this.text(value);
    // Input can be nested thousands deep (a model's tool arguments): deeper than any real payload, the
    // rest is kept as redacted JSON text instead of being walked, so the walk cannot overflow the stack.
    if (depth > MAX_WALK_DEPTH && value !== null && typeof value === "object") return this.text(safeJson(value));
    if (Array.isArray(value)) return value.map((v) => this.walk(v, depth + 1));
    if (value !== null && typeof value === "object") {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.walk(v, depth + 1)]));
    }
    return value;
  }
}

const MAX_WALK_DEPTH = 100;

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return "[a value nested too deep to keep]";
  }
}
