// A terminal pod whose output a test writes. Like a real pod it replays what
// it printed before on request, and it may carry secret values to redact.
import type { TerminalPod } from "@/server/compute";

export function fakeTerminalPod(opts: { id?: string; secrets?: Record<string, string> } = {}) {
  const data = new Set<(chunk: string) => void>();
  const exit = new Set<(info: { exitCode: number; reason: string }) => void>();
  const secrets = Object.entries(opts.secrets ?? {});
  let printed = "";
  /** Every size the pod was given, in order. */
  const sizes: Array<[number, number]> = [];
  const pod = {
    id: opts.id ?? "pod-fake",
    sandbox: "none",
    workspaceDir: "",
    startedAt: 0,
    onData: (l: (chunk: string) => void, options?: { replay?: boolean }) => {
      if (options?.replay && printed) l(printed);
      data.add(l);
      return () => data.delete(l);
    },
    onExit: (l: (info: { exitCode: number; reason: string }) => void) => (exit.add(l), () => exit.delete(l)),
    write() {},
    resize: (cols: number, rows: number) => void sizes.push([cols, rows]),
    exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
    alive: () => true,
    dispose: async () => {},
    ...(secrets.length
      ? {
          secretForms: () => secrets.map(([name, form]) => ({ form, name })),
          redactScreen: (text: string) => secrets.reduce((t, [name, form]) => t.split(form).join(`[secret:${name}]`), text),
        }
      : {}),
  } satisfies TerminalPod;
  return {
    pod,
    sizes,
    emit(chunk: string) {
      printed += chunk;
      data.forEach((l) => l(chunk));
    },
    exit: (reason: string) => exit.forEach((l) => l({ exitCode: 0, reason })),
  };
}
