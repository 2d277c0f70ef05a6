// CLI commands for remote machines over REST v1 (docs/desktops-and-tiers.md#t3-remote-machines):
// `machines list`, `machines add --name N --host H --user U [--port P]
// [--labels a,b] [--concurrency N] [--team ID]` (prints the public key and
// the host install script), `machines confirm-key ID [--fingerprint SHA256:…]`
// (without --fingerprint: shows what the machine presents), `machines test ID`
// and `machines remove ID`. Admins, except list.
import type { components } from "../lib/rest-api.generated";
import { addressOf, hostInstallScript } from "../lib/machines";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type MachineView = components["schemas"]["Machine"];
type MachineValues = {
  json?: boolean;
  name?: string;
  host?: string;
  port?: string;
  user?: string;
  labels?: string;
  concurrency?: string;
  team?: string;
  fingerprint?: string;
};

export const MACHINE_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  user: { type: "string" },
  labels: { type: "string" },
  fingerprint: { type: "string" },
} as const;

const STATE = { not_confirmed: "not confirmed", ready: "ready", unreachable: "unreachable" } as const;

function printMachine(m: MachineView) {
  const labels = m.labels.length ? m.labels.join(",") : "-";
  console.log(
    `${m.id}  ${m.name}  ${m.user}@${addressOf(m)}  ${STATE[m.state]}  labels ${labels}  concurrency ${m.concurrency}  team ${m.team?.name ?? "every team"}  confinement ${m.confinement}${m.lastError ? `  (${m.lastError})` : ""}`,
  );
}

function whole(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${what} must be a whole number of 1 or more (it was ${text})`);
  return n;
}

const need = (id: string | undefined, sub: string) => {
  if (!id) throw new CliError(`machines ${sub} needs the machine's ID (machines list shows it)`);
  return id;
};

export const MACHINE_COMMANDS: CliCommand<MachineValues>[] = [
  {
    command: "machines",
    sub: "list",
    usage: "[--json]",
    description:
      "List the remote machines you may use (admins: every one): address, state, labels, team, confinement. Never a private key.",
    async run({ api, values }) {
      const { machines } = await ok(api.GET("/api/v1/machines"));
      if (values.json) return console.log(JSON.stringify(machines));
      if (machines.length === 0)
        return console.log("No machines. An admin adds one with: npm run rein -- machines add --name N --host H --user U");
      machines.forEach(printMachine);
    },
  },
  {
    command: "machines",
    sub: "add",
    usage: "--name N --host H --user U [--port P] [--labels a,b] [--concurrency N] [--team ID] [--json]",
    description:
      "Register a remote machine (admins). Rein makes its key pair and prints the public key and a host install script; then run machines confirm-key.",
    async run({ api, values }) {
      if (!values.name || !values.host || !values.user) throw new CliError("machines add needs --name, --host and --user");
      const port = whole(values.port, "--port");
      const concurrency = whole(values.concurrency, "--concurrency");
      const labels = values.labels
        ?.split(",")
        .map((l) => l.trim())
        .filter(Boolean);
      const m = await ok(
        api.POST("/api/v1/machines", {
          body: {
            name: values.name,
            host: values.host,
            user: values.user,
            ...(port !== undefined ? { port } : {}),
            ...(concurrency !== undefined ? { concurrency } : {}),
            ...(labels ? { labels } : {}),
            ...(values.team ? { teamId: values.team } : {}),
          },
        }),
      );
      if (values.json) return console.log(JSON.stringify(m));
      console.log(`Machine ${m.name} (${m.id}) registered. Install Rein's public key for ${m.user} on it:\n\n  ${m.publicKey}\n`);
      console.log(`For example, on the machine:\n\n  ${hostInstallScript(m)}\n`);
      console.log(`Then: npm run rein -- machines confirm-key ${m.id}`);
    },
  },
  {
    command: "machines",
    sub: "confirm-key",
    usage: "ID [--fingerprint SHA256:…] [--json]",
    description:
      "Without --fingerprint: contact the machine and show the host key it presents. With it: contact it again and pin that key, if it is the one presented (admins).",
    async run({ api, args, values }) {
      const id = need(args[0], "confirm-key");
      if (!values.fingerprint) {
        const seen = await ok(api.POST("/api/v1/machines/{id}/contact", { params: { path: { id } } }));
        if (values.json) return console.log(JSON.stringify(seen));
        console.log(seen.words);
        if (!seen.pinned) console.log(`To pin it: npm run rein -- machines confirm-key ${id} --fingerprint ${seen.fingerprint}`);
        return;
      }
      const m = await ok(
        api.POST("/api/v1/machines/{id}/confirm-key", { params: { path: { id } }, body: { fingerprint: values.fingerprint } }),
      );
      if (values.json) return console.log(JSON.stringify(m));
      console.log(`Host key ${m.hostKeyFingerprint} pinned for ${m.name}. Next: npm run rein -- machines test ${m.id}`);
    },
  },
  {
    command: "machines",
    sub: "test",
    usage: "ID [--json]",
    description:
      "Connect with the pinned host key and say what was found: OS, CPUs, whether commands run confined (admins). Exits with 1 when it fails.",
    async run({ api, args, values }) {
      const id = need(args[0], "test");
      const result = await ok(api.POST("/api/v1/machines/{id}/test", { params: { path: { id } } }));
      if (values.json) console.log(JSON.stringify(result));
      else console.log(result.words);
      if (!result.ok) process.exitCode = 1;
    },
  },
  {
    command: "machines",
    sub: "remove",
    usage: "ID",
    description: "Remove (archive) a machine: nothing connects to it again (admins).",
    async run({ api, args }) {
      const id = need(args[0], "remove");
      const m = await ok(api.DELETE("/api/v1/machines/{id}", { params: { path: { id } } }));
      console.log(`Machine ${m.name} removed; remove Rein's key from ~${m.user}/.ssh/authorized_keys on it too`);
    },
  },
];
