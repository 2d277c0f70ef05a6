// Redaction of a stream of text (a terminal's output) in which a value may be
// cut across two chunks: the tail of a chunk that could begin a value is held
// back until the next chunk shows whether it does, or until flush().
import { literalForms, redactor } from "./redact";
import type { NamedSecret } from "./types";

export class StreamRedactor {
  private carry = "";
  private secrets: NamedSecret[] = [];
  private forms: string[] = [];
  private apply: (text: string) => string = (t) => t;

  constructor(secrets: NamedSecret[] = []) {
    this.remember(secrets);
  }

  /** Adds values to hide from now on. */
  remember(secrets: NamedSecret[]): void {
    const fresh = secrets.filter((s) => s.value && !this.secrets.some((k) => k.name === s.name && k.value === s.value));
    if (fresh.length === 0) return;
    this.secrets = [...this.secrets, ...fresh];
    this.forms = [...new Set(this.secrets.flatMap((s) => literalForms(s.value)))];
    this.apply = redactor(this.secrets);
  }

  /** True while a tail is held back; call flush() if no more text comes soon. */
  get holding(): boolean {
    return this.carry.length > 0;
  }

  /** The chunk, redacted, minus a tail that may be the start of a value. */
  push(chunk: string): string {
    if (this.forms.length === 0 && !this.carry) return chunk;
    const text = this.apply(this.carry + chunk);
    const keep = this.heldFrom(text);
    this.carry = text.slice(keep);
    return text.slice(0, keep);
  }

  /** Whatever is held back: no more text came, so it was not a value. */
  flush(): string {
    const rest = this.carry;
    this.carry = "";
    return rest;
  }

  /** Where the longest tail that is a proper prefix of some form starts (text.length: none). */
  private heldFrom(text: string): number {
    let from = text.length;
    for (const form of this.forms) {
      const start = Math.max(0, text.length - form.length + 1);
      for (let i = start; i < from; i++) {
        if (text.charCodeAt(i) === form.charCodeAt(0) && form.startsWith(text.slice(i))) {
          from = i;
          break;
        }
      }
    }
    return from;
  }
}
