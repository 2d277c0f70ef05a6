// The files a change touches, grouped by risk for its reviewer
// (docs/changes.md): what runs the system or its builds first, then code, then
// tests and docs.
export type Risk = "high" | "medium" | "low";

const HIGH = [
  /^package(-lock)?\.json$/,
  /(^|\/)(npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml)$/,
  /^prisma\//,
  /^scripts\//,
  /(^|\/)Dockerfile$/,
  /^\.[^/]+rc(\.|$)/,
  /\.(sh|bash)$/,
  /^server\.ts$/,
  /(^|\/)next\.config\./,
  /^server\//,
];
const LOW = [/^docs\//, /\.(md|txt)$/, /(^|\/)(test|tests|__tests__|e2e)\//, /\.(test|spec)\.[cm]?[jt]sx?$/];

export function riskOf(path: string): Risk {
  if (HIGH.some((r) => r.test(path))) return "high";
  if (LOW.some((r) => r.test(path))) return "low";
  return "medium";
}

export function groupByRisk(paths: readonly string[]): Record<Risk, string[]> {
  const out: Record<Risk, string[]> = { high: [], medium: [], low: [] };
  for (const p of [...paths].sort()) out[riskOf(p)].push(p);
  return out;
}
