// CLI commands for the extension registry over REST v1
// (docs/extensions.md#pages-api-and-cli): `extensions` lists them (--state),
// `extensions show ID` prints one with its capabilities and test results,
// `extensions propose FILE` sends a package ({ manifest, files } as JSON; -
// reads standard input), and
// `extensions disable|enable|approve|reject|remove ID` acts on one.
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import { given, readInput, type Body, type Query } from "./cli-input";
import type { CliCommand } from "./cli-commands";

type ExtensionValues = { json?: boolean; state?: string; comment?: string };

const ACTIONS = ["disable", "enable", "approve", "reject"] as const;

type Summary = components["schemas"]["ExtensionSummary"];

const testsText = (t: Summary["tests"]) => (t ? `${t.passed} passed, ${t.failed} failed` : "not tested");
const listed = (xs: string[]) => xs.join(", ") || "none";

function idOf(args: string[], verb: string): string {
  if (!args[1]) throw new CliError(`extensions ${verb} needs the extension's ID (npm run rein -- extensions lists them)`);
  return args[1];
}

function readPackage(file: string): unknown {
  let text: string;
  try {
    text = readInput(file);
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(
      `${file} is not JSON (an extension package is { "manifest": {...}, "files": { "index.js": "..." } }): ${(err as Error).message}`,
    );
  }
}

function line(x: Summary): string {
  return `${x.name} v${x.version}: ${x.state}${x.stateReason ? ` — ${x.stateReason}` : ""}`;
}

export const EXTENSION_COMMANDS: CliCommand<ExtensionValues>[] = [
  {
    command: "extensions",
    usage: "[show|propose|disable|enable|approve|reject|remove ID|FILE] [--state S] [--comment REASON] [--json]",
    description:
      "List the extensions (tier 2: packages of tools, hooks and skills with their own tests), show one with its capabilities and test results, propose a package from a JSON file (admin; - reads standard input), switch one off or on (approver), approve, reject or remove one (admin).",
    async run({ api, args, values }) {
      const [verb] = args;
      if (!verb) {
        const { extensions } = await ok(
          api.GET("/api/v1/extensions", {
            params: { query: values.state ? { state: given<Query<"/api/v1/extensions", "get">["state"]>(values.state) } : {} },
          }),
        );
        if (values.json) return console.log(JSON.stringify(extensions));
        if (!extensions.length) return console.log("No extensions yet. Propose one with: npm run rein -- extensions propose package.json");
        for (const x of extensions) {
          console.log(
            `${x.id}  ${`${x.name} v${x.version}`.padEnd(28)} ${x.state.padEnd(17)} tools ${listed(x.tools).padEnd(24)} capabilities ${listed(x.capabilities).padEnd(14)} ${testsText(x.tests)}`,
          );
        }
        return;
      }
      if (verb === "show") {
        const x = await ok(api.GET("/api/v1/extensions/{id}", { params: { path: { id: idOf(args, "show") } } }));
        if (values.json) return console.log(JSON.stringify(x));
        console.log(line(x));
        console.log(x.description);
        console.log(
          `capabilities: ${listed(x.capabilities)} · tools: ${listed(x.tools)} · hooks: ${listed(x.hooks)} · skills: ${listed(x.skills)}`,
        );
        if (x.testResults) {
          console.log(`\ntests: ${x.testResults.summary}`);
          if (!x.testResults.build.ok) console.log(`  build failed: ${(x.testResults.build.problems ?? []).join("; ")}`);
          for (const r of x.testResults.results)
            console.log(`  ${r.ok ? "pass" : "FAIL"}  ${r.file} › ${r.name}${r.ok ? "" : `: ${r.message}`}`);
        }
        console.log(
          `\nfiles:\n${Object.keys(x.files)
            .map((f) => `  ${f}`)
            .join("\n")}`,
        );
        return;
      }
      if (verb === "propose") {
        if (!args[1])
          throw new CliError("extensions propose needs a FILE: the package as JSON, { manifest, files } (- reads standard input)");
        const x = await ok(api.POST("/api/v1/extensions", { body: given<Body<"/api/v1/extensions", "post">>(readPackage(args[1])) }));
        if (values.json) return console.log(JSON.stringify(x));
        return console.log(`${line(x)}${x.tests ? ` (${testsText(x.tests)})` : ""}\n${x.id}`);
      }
      if (verb === "remove") {
        const x = await ok(api.DELETE("/api/v1/extensions/{id}", { params: { path: { id: idOf(args, verb) } } }));
        return console.log(values.json ? JSON.stringify(x) : line(x));
      }
      const action = ACTIONS.find((a) => a === verb);
      if (action) {
        const x = await ok(
          api.POST(`/api/v1/extensions/{id}/${action}`, {
            params: { path: { id: idOf(args, action) } },
            body: values.comment ? { reason: values.comment } : {},
          }),
        );
        return console.log(values.json ? JSON.stringify(x) : line(x));
      }
      throw new CliError(`extensions takes show, propose, disable, enable, approve, reject or remove, not "${verb}"`);
    },
  },
];
