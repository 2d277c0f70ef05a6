// Extensions in the registry (docs/extensions.md) as a state machine,
// one row per version: every allowed transition in one table.
//
//   proposed -> testing -> failed | awaiting_approval | installed
//   awaiting_approval -> installed | rejected
//   installed <-> disabled;  installed | disabled -> superseded (a newer version installed)
//   any but removed -> removed (an admin)
export const EXTENSION_STATES = [
  "proposed",
  "testing",
  "failed",
  "awaiting_approval",
  "rejected",
  "installed",
  "disabled",
  "superseded",
  "removed",
] as const;
export type ExtensionState = (typeof EXTENSION_STATES)[number];

const TRANSITIONS: Record<ExtensionState, readonly ExtensionState[]> = {
  proposed: ["testing", "removed"],
  testing: ["failed", "awaiting_approval", "installed", "removed"],
  failed: ["removed"],
  awaiting_approval: ["installed", "rejected", "removed"],
  rejected: ["removed"],
  installed: ["disabled", "superseded", "removed"],
  disabled: ["installed", "superseded", "removed"],
  superseded: ["removed"],
  removed: [],
};

export const isExtensionState = (v: unknown): v is ExtensionState =>
  typeof v === "string" && (EXTENSION_STATES as readonly string[]).includes(v);
export const canExtensionGo = (from: ExtensionState, to: ExtensionState) => TRANSITIONS[from].includes(to);

/** Semantic versions compared by precedence (build metadata ignored): negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split("+")[0].split(/-(.*)/s);
    return { core: core.split(".").map(Number), pre: pre ? pre.split(".") : [] };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i];
  // A pre-release comes before its release.
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i], y.pre[i]];
    if (p === q) continue;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
