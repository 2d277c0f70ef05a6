// CLI commands for devices over REST v1 (docs/devices.md#managing-devices):
// `devices list [--revoked]`, `devices pair [--team T]` (prints a pairing code
// once, with the command to run on the device) and `devices revoke ID`.
import { DEVICE_AGENT_PATH } from "@/lib/device-protocol";
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type DeviceView = components["schemas"]["Device"];
type DeviceValues = { json?: boolean; team?: string; revoked?: boolean; url?: string };

export const DEVICE_OPTIONS = {
  revoked: { type: "boolean" },
} as const;

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "never");

function printDevice(d: DeviceView) {
  const c = d.capabilities;
  const facts = c
    ? `${c.os}/${c.arch} ${c.cpus} cpu ${Math.round(c.memoryMb / 1024)} GiB, commands ${c.commands}${c.commands === "any" ? (c.confined ? " (confined)" : " (NOT confined)") : ""}`
    : "capabilities unknown";
  const hardware = c?.hardware.length ? `, exposes ${c.hardware.join(",")}` : "";
  console.log(`${d.id}  ${d.name}  ${d.state}  owner ${d.owner.name}  last seen ${when(d.lastSeenAt)}  ${facts}${hardware}`);
}

export const DEVICE_COMMANDS: CliCommand<DeviceValues>[] = [
  {
    command: "devices",
    sub: "list",
    usage: "[--revoked] [--json]",
    description:
      "List your devices (admins: everyone's): online or offline, last seen, owner, what each reported. --revoked: revoked ones too.",
    async run({ api, values }) {
      const { devices } = await ok(api.GET("/api/v1/devices", { params: { query: values.revoked ? { includeRevoked: "true" } : {} } }));
      if (values.json) return console.log(JSON.stringify(devices));
      if (devices.length === 0) return console.log("No devices. Pair one with: npm run rein -- devices pair");
      devices.forEach(printDevice);
    },
  },
  {
    command: "devices",
    sub: "pair",
    usage: "[--team ID] [--json]",
    description:
      "Make a pairing code for a device of yours (10 minutes, one device) and print the command to run on it. The code is printed once.",
    async run({ api, values }) {
      const made = await ok(api.POST("/api/v1/devices/pairings", { body: values.team ? { teamId: values.team } : {} }));
      if (values.json) return console.log(JSON.stringify(made));
      const base = (values.url ?? process.env.REIN_URL ?? "http://localhost:3000").replace(/\/+$/, "");
      console.log(`Pairing code: ${made.code}  (good until ${when(made.expiresAt)} UTC, for one device)`);
      console.log("On the device (Node 22 or later), with the folder Rein's runs may use:");
      console.log(`\n  npx ${base}${DEVICE_AGENT_PATH} pair ${base} ${made.code} --folder ~/rein-work\n`);
      console.log(`then: npx ${base}${DEVICE_AGENT_PATH} run`);
    },
  },
  {
    command: "devices",
    sub: "revoke",
    usage: "ID",
    description: "Revoke a device (its owner, or an admin): its token stops working and its connection closes at once.",
    async run({ api, args }) {
      const id = args[0];
      if (!id) throw new CliError("devices revoke needs the device's ID (devices list shows it)");
      const device = await ok(api.DELETE("/api/v1/devices/{id}", { params: { path: { id } } }));
      console.log(`Device ${device.name} (${device.id}) revoked`);
    },
  },
];
