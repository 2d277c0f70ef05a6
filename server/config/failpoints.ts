// Fault injection for crash tests. REIN_FAILPOINTS="name:n[,name:n]" makes the
// n-th hit of `name` in this process kill the process at once (SIGKILL), to
// land a crash inside a window too narrow to hit from outside. Off when unset.
const armed = new Map<string, number>();
for (const item of (process.env.REIN_FAILPOINTS ?? "").split(",").filter(Boolean)) {
  const [name, n] = item.split(":");
  const at = Number.parseInt(n ?? "1", 10);
  if (name && at > 0) armed.set(name, at);
}
const hits = new Map<string, number>();

export type FailpointName = "after-tool-executed";

export function failpoint(name: FailpointName): void {
  const at = armed.get(name);
  if (at === undefined) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n === at) process.kill(process.pid, "SIGKILL");
}
