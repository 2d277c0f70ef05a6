// Process and memory limits for a pod's whole process tree, with cgroups
// (v1 controllers or the v2 unified tree) when this host lets Rein write them.
import fs from "node:fs";
import path from "node:path";

const ROOT = "/sys/fs/cgroup";

interface Layout {
  pids: string | null; // directory under which Rein makes its groups
  memory: string | null;
  v2: boolean;
}

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
    layout = {
      pids: ok && controllers.includes("pids") ? base : null,
      memory: ok && controllers.includes("memory") ? base : null,
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
    layout = { pids: pick("pids"), memory: pick("memory"), v2: false };
  }
  return layout;
}

/** Removes empty pod groups left by servers that were killed; groups with processes are left alone. */
export function sweepStaleCgroups(): number {
  const l = detect();
  let removed = 0;
  for (const base of new Set([l.pids, l.memory].filter((b): b is string => !!b))) {
    for (const name of fs.readdirSync(base)) {
      if (!name.startsWith("pod-")) continue;
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

export function cgroupSupport(): { pids: boolean; memory: boolean } {
  const l = detect();
  return { pids: !!l.pids, memory: !!l.memory };
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
    make(l.pids ?? l.memory, {
      ...(l.pids ? { "pids.max": String(limits.processes) } : {}),
      ...(l.memory ? { "memory.max": bytes, "memory.swap.max": "0" } : {}),
    });
  } else {
    make(l.pids, { "pids.max": String(limits.processes) });
    make(l.memory, { "memory.limit_in_bytes": bytes });
    try {
      if (l.memory) fs.writeFileSync(path.join(l.memory, podId, "memory.memsw.limit_in_bytes"), bytes);
    } catch {
      /* swap accounting off: memory.limit_in_bytes still applies */
    }
  }
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
          } catch {
            if (attempt < 100) setTimeout(() => tryRemove(attempt + 1), 20).unref();
          }
        };
        tryRemove(0);
      }
    },
  };
}
