// Process and memory limits for a pod's whole process tree, with cgroups
// (v1 controllers or the v2 unified tree) when this host lets Rein write them,
// and the CPU's share between the server and its pods
// (docs/security.md#terminal-pods-t1).
import fs from "node:fs";
import path from "node:path";

const ROOT = "/sys/fs/cgroup";

interface Layout {
  pids: string | null; // directory under which Rein makes its groups
  memory: string | null;
  /** The group holding the pods' and this server's cpu groups; null where the cpu controller is not writable. */
  cpu: string | null;
  v2: boolean;
}

/**
 * The CPU between the server and the agents' pods. Each pod's terminal is a
 * session of its own, and the kernel gives each session as much CPU as any
 * other: 64 busy pods left the server a 65th of it, and it answered in
 * seconds. So the server joins a cpu group of its own beside the pods' groups
 * and weighs as much as all pods together: when both want the CPU it gets
 * half (in practice the core it runs on), and when it is idle the pods get
 * every core. Toward the rest of the host the pods and servers weigh what
 * they did as sessions: one share each. Weights only divide what is wanted;
 * none is a cap.
 */
const CPU_UNIT = { v1: { file: "cpu.shares", unit: 1024, max: 262_144 }, v2: { file: "cpu.weight", unit: 100, max: 10_000 } };
const SERVER_GROUP = `server-${process.pid}`;

let layout: Layout | null = null;

function writable(dir: string): boolean {
  const probe = path.join(dir, `rein-probe-${process.pid}`);
  try {
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function detect(): Layout {
  if (layout) return layout;
  const v2 = fs.existsSync(path.join(ROOT, "cgroup.controllers"));
  if (v2) {
    const controllers = fs.readFileSync(path.join(ROOT, "cgroup.controllers"), "utf8");
    const base = path.join(ROOT, "rein");
    let ok = false;
    try {
      fs.mkdirSync(base, { recursive: true });
      fs.writeFileSync(path.join(ROOT, "cgroup.subtree_control"), "+pids +memory");
      fs.writeFileSync(path.join(base, "cgroup.subtree_control"), "+pids +memory");
      ok = writable(base);
    } catch {
      ok = false;
    }
    let cpu: string | null = null;
    if (ok && controllers.includes("cpu")) {
      try {
        fs.writeFileSync(path.join(ROOT, "cgroup.subtree_control"), "+cpu");
        fs.writeFileSync(path.join(base, "cgroup.subtree_control"), "+cpu");
        cpu = base;
      } catch {
        /* the cpu controller cannot be delegated here (e.g. real-time threads in the root group) */
      }
    }
    layout = {
      pids: ok && controllers.includes("pids") ? base : null,
      memory: ok && controllers.includes("memory") ? base : null,
      cpu,
      v2: true,
    };
  } else {
    const pick = (controller: string) => {
      const dir = path.join(ROOT, controller);
      if (!fs.existsSync(dir)) return null;
      const base = path.join(dir, "rein");
      try {
        fs.mkdirSync(base, { recursive: true });
      } catch {
        return null;
      }
      return writable(base) ? base : null;
    };
    layout = { pids: pick("pids"), memory: pick("memory"), cpu: pick("cpu"), v2: false };
  }
  return layout;
}

let serverMoved = false;

/**
 * Moves this server into its cpu group (once) and weighs the groups again
 * from what is there now: the pods of every Rein process on this host, and
 * their servers. Called when a pod starts or goes.
 */
function balanceCpu(l: Layout): void {
  if (!l.cpu) return;
  const { file, unit, max } = l.v2 ? CPU_UNIT.v2 : CPU_UNIT.v1;
  const weight = (n: number) => String(Math.min(max, Math.max(1, Math.round(n * unit))));
  try {
    const mine = path.join(l.cpu, SERVER_GROUP);
    if (!serverMoved) {
      fs.mkdirSync(mine, { recursive: true });
      fs.writeFileSync(path.join(mine, "cgroup.procs"), String(process.pid));
      serverMoved = true;
    }
    const names = fs.readdirSync(l.cpu);
    const pods = names.filter((n) => n.startsWith("pod-")).length;
    const servers = names.filter((n) => n.startsWith("server-")).length;
    fs.writeFileSync(path.join(mine, file), weight(Math.max(1, pods)));
    // On v2 the pods' group is the root's child; on v1 the cpu hierarchy's.
    fs.writeFileSync(path.join(l.cpu, file), weight(pods + servers));
  } catch {
    /* a group went between the read and the write; the next start or stop weighs again */
  }
}

/** Removes empty pod groups left by servers that were killed; groups with processes are left alone. */
export function sweepStaleCgroups(): number {
  const l = detect();
  let removed = 0;
  for (const base of new Set([l.pids, l.memory, l.cpu].filter((b): b is string => !!b))) {
    for (const name of fs.readdirSync(base)) {
      if (!name.startsWith("pod-") && !name.startsWith("server-")) continue;
      const dir = path.join(base, name);
      try {
        // Another process may have just made it and not yet moved its shell in.
        if (Date.now() - fs.statSync(dir).mtimeMs < 60_000) continue;
        if (fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim() === "") {
          fs.rmdirSync(dir);
          removed++;
        }
      } catch {
        /* in use or already gone */
      }
    }
  }
  return removed;
}

export function cgroupSupport(): { pids: boolean; memory: boolean; cpu: boolean } {
  const l = detect();
  return { pids: !!l.pids, memory: !!l.memory, cpu: !!l.cpu };
}

export interface PodCgroup {
  /** Moves a process (and so everything it starts later) into the group. */
  add(pid: number): void;
  /** True when the memory limit killed something. */
  oomKilled(): boolean;
  remove(): void;
}

/** Makes the pod's group(s) with the limits; null parts where cgroups are not writable. */
export function createPodCgroup(podId: string, limits: { processes: number; memoryMb: number }): PodCgroup {
  const l = detect();
  const dirs: string[] = [];
  const bytes = String(limits.memoryMb * 1024 * 1024);
  const make = (base: string | null, files: Record<string, string>) => {
    if (!base) return;
    const dir = path.join(base, podId);
    fs.mkdirSync(dir, { recursive: true });
    for (const [f, v] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), v);
    if (!dirs.includes(dir)) dirs.push(dir);
  };
  if (l.v2) {
    make(l.pids ?? l.memory ?? l.cpu, {
      ...(l.pids ? { "pids.max": String(limits.processes) } : {}),
      ...(l.memory ? { "memory.max": bytes, "memory.swap.max": "0" } : {}),
    });
  } else {
    make(l.pids, { "pids.max": String(limits.processes) });
    make(l.memory, { "memory.limit_in_bytes": bytes });
    // Each pod's cpu group, beside the others and the servers' (balanceCpu).
    make(l.cpu, {});
    try {
      if (l.memory) fs.writeFileSync(path.join(l.memory, podId, "memory.memsw.limit_in_bytes"), bytes);
    } catch {
      /* swap accounting off: memory.limit_in_bytes still applies */
    }
  }
  balanceCpu(l);
  return {
    add(pid) {
      for (const dir of dirs) fs.writeFileSync(path.join(dir, "cgroup.procs"), String(pid));
    },
    oomKilled() {
      for (const dir of dirs) {
        for (const f of ["memory.events", "memory.oom_control"]) {
          try {
            const text = fs.readFileSync(path.join(dir, f), "utf8");
            if (/oom_kill [1-9]/.test(text)) return true;
          } catch {
            /* not this layout */
          }
        }
      }
      return false;
    },
    remove() {
      for (const dir of dirs) {
        // Kill anything left, then remove the group.
        try {
          for (const pid of fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) {
            try {
              process.kill(Number(pid), "SIGKILL");
            } catch {
              /* gone */
            }
          }
        } catch {
          /* already removed */
        }
        // The group can be removed once the kernel has reaped the killed processes.
        const tryRemove = (attempt: number) => {
          try {
            fs.rmdirSync(dir);
            if (dir === path.join(l.cpu ?? "", podId)) balanceCpu(l);
          } catch {
            if (attempt < 100) setTimeout(() => tryRemove(attempt + 1), 20).unref();
          }
        };
        tryRemove(0);
      }
    },
  };
}
