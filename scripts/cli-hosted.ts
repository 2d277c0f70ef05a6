// CLI commands for hosted agents' programs over REST v1
// (docs/hosted-agents.md#installing-a-program): `hosted list`, `hosted install
// ID` (an admin; waits for the install and prints how it goes) and `hosted
// test ID` (an admin; starts the program in a throwaway sandbox and prints
// what it answered).
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type ProgramView = components["schemas"]["HostedProgram"];
type HostedValues = { json?: boolean };

/** How often `hosted install` asks how the install goes. */
export const INSTALL_POLL_MS = 500;

function need(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`usage: npm run rein -- hosted ${usage}`);
  return args[0];
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

function printProgram(p: ProgramView) {
  const source = p.package ? `${p.package.name}@${p.package.version}` : "comes with Rein";
  console.log(`${p.id} — ${p.name} (${source}): ${p.installed ? "installed" : `not installed — ${p.notInstalledReason ?? "unknown"}`}`);
  console.log(
    `  model calls: ${p.protocols.map((x) => x.name).join(", ")}; reloads a session after a restart: ${yesNo(p.loadsSessions)}; agents: ${p.agents.join(", ") || "none"}`,
  );
  if (p.install && p.install.state !== "installed") console.log(`  install: ${p.install.message}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const HOSTED_COMMANDS: CliCommand<HostedValues>[] = [
  {
    command: "hosted",
    sub: "list",
    usage: "[--json]",
    description:
      "List the programs hosted agents can run: installed or not (and why not), the pinned package, the protocols of their model calls, whether they reload a session, and the agents using each.",
    async run({ api, values }) {
      const { programs } = await ok(api.GET("/api/v1/hosted-programs"));
      if (values.json) return console.log(JSON.stringify(programs));
      for (const p of programs) printProgram(p);
    },
  },
  {
    command: "hosted",
    sub: "install",
    usage: "ID",
    description:
      "Install a program's pinned npm package (admin), without its install scripts and only with the integrity Rein pins; waits and prints how it goes.",
    async run({ api, args }) {
      const id = need(args, "install ID");
      let p = await ok(api.POST("/api/v1/hosted-programs/{id}/install", { params: { path: { id } } }));
      let said = "";
      while (p.install?.state === "installing") {
        if (p.install.message !== said) console.log((said = p.install.message));
        await sleep(INSTALL_POLL_MS);
        const { programs } = await ok(api.GET("/api/v1/hosted-programs"));
        const now = programs.find((x) => x.id === id);
        if (!now) throw new CliError(`Rein no longer lists the program ${id}`);
        p = now;
      }
      if (p.install?.state === "failed") throw new CliError(p.install.message);
      if (!p.installed) throw new CliError(`${p.name} is still not installed: ${p.notInstalledReason ?? "unknown"}`);
      console.log(`${p.name} is installed (${p.package ? `${p.package.name}@${p.package.version}` : "comes with Rein"})`);
    },
  },
  {
    command: "hosted",
    sub: "test",
    usage: "ID [--json]",
    description:
      "Start a program in a throwaway sandbox and ask it the protocol's first question (admin): prints its name and version, whether it reloads sessions and its sign-in methods, or why it did not answer.",
    async run({ api, args, values }) {
      const id = need(args, "test ID [--json]");
      const result = await ok(api.POST("/api/v1/hosted-programs/{id}/test", { params: { path: { id } } }));
      if (values.json) return console.log(JSON.stringify(result));
      if (!result.ok) throw new CliError(result.summary);
      console.log(result.summary);
    },
  },
];
