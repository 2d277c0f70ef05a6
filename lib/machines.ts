// Remote machines (T3, docs/desktops-and-tiers.md#t3-remote-machines): the
// input schemas and limits the server checks and Settings › Machines shows,
// in one browser-safe module, and the host install script suggested to admins.
import { z } from "zod";

export const MAX_MACHINE_LABELS = 16;
export const MAX_MACHINE_CONCURRENCY = 64;

const MachineId = z.string().trim().min(1).max(64);

export const MachineName = z
  .string()
  .trim()
  .min(1, "A machine needs a name")
  .max(64, "A machine's name has at most 64 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "A machine's name is letters, digits, '.', '_' and '-', starting with a letter or digit");

/** A DNS name, an IPv4 address or an IPv6 address (without brackets); never anything an option parser could read. */
export const MachineHost = z
  .string()
  .trim()
  .min(1, "A machine needs an address")
  .max(253, "An address has at most 253 characters")
  .refine(
    (h) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*\.?$/.test(h) || /^[0-9A-Fa-f:.]{2,45}$/.test(h),
    "The address is a host name (letters, digits, '-' and '.') or an IP address",
  );

export const MachinePort = z.number().int("The port is a whole number").min(1).max(65535);

export const MachineUser = z
  .string()
  .trim()
  .min(1, "A machine needs the user Rein logs in as")
  .max(32, "A user name has at most 32 characters")
  .regex(/^[a-z_][a-z0-9_-]*$/, "A user name is lower-case letters, digits, '_' and '-', starting with a letter or '_'");

export const MachineLabel = z
  .string()
  .trim()
  .min(1)
  .max(32, "A label has at most 32 characters")
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "A label is lower-case letters, digits, '.', '_' and '-' (gpu, arm64, …)");

export const MachineLabels = z.array(MachineLabel).max(MAX_MACHINE_LABELS, `A machine has at most ${MAX_MACHINE_LABELS} labels`);

export const MachineConcurrency = z
  .number()
  .int("Concurrency is a whole number")
  .min(1, "Concurrency is at least 1")
  .max(MAX_MACHINE_CONCURRENCY, `Concurrency is at most ${MAX_MACHINE_CONCURRENCY}`);

/** SHA256:<base64 without padding>, as `ssh-keygen -lf` prints it. */
export const HostKeyFingerprint = z
  .string()
  .trim()
  .max(64)
  .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, "A host key fingerprint is written SHA256:<43 characters>, as ssh-keygen -lf prints it");

const TeamScope = MachineId.nullable().describe("The team that may use it; null: every team");

export const RegisterMachineInput = z
  .object({
    name: MachineName,
    host: MachineHost,
    port: MachinePort.default(22),
    user: MachineUser,
    labels: MachineLabels.default([]),
    concurrency: MachineConcurrency.default(1),
    teamId: TeamScope.default(null),
  })
  .strict();
export type RegisterMachineInput = z.input<typeof RegisterMachineInput>;

export const UpdateMachinePatch = z
  .object({
    name: MachineName.optional(),
    host: MachineHost.optional(),
    port: MachinePort.optional(),
    user: MachineUser.optional(),
    labels: MachineLabels.optional(),
    concurrency: MachineConcurrency.optional(),
    teamId: TeamScope.optional(),
  })
  .strict();

export const UpdateMachineInput = z.object({ id: MachineId, patch: UpdateMachinePatch }).strict();
export const MachineRef = z.object({ id: MachineId }).strict();
export const ConfirmHostKeyInput = z.object({ id: MachineId, fingerprint: HostKeyFingerprint }).strict();

export type MachineState = "not_confirmed" | "ready" | "unreachable";
export type Confinement = "bubblewrap" | "user" | "unknown";

export const MACHINE_STATE_WORDS: Record<MachineState, string> = {
  not_confirmed: "Not confirmed",
  ready: "Ready",
  unreachable: "Unreachable",
};

/** host:port, with brackets around an IPv6 address. */
export const addressOf = (m: { host: string; port: number }) => `${m.host.includes(":") ? `[${m.host}]` : m.host}:${m.port}`;

/**
 * The one-line host install script for a machine (docs/desktops-and-tiers.md#host-install-script):
 * a dedicated user, Rein's public key as its only authorized key, and bubblewrap.
 * Names and keys are checked by the schemas above, so nothing here needs quoting beyond the key's.
 */
export function hostInstallScript(m: { user: string; publicKey: string }): string {
  const u = m.user;
  return [
    `(id -u ${u} >/dev/null 2>&1 || sudo useradd --create-home --shell /bin/sh ${u})`,
    `sudo install -d -m 700 -o ${u} -g ${u} ~${u}/.ssh`,
    `echo '${m.publicKey.replace(/'/g, "")}' | sudo tee ~${u}/.ssh/authorized_keys >/dev/null`,
    `sudo chown ${u}: ~${u}/.ssh/authorized_keys`,
    `sudo chmod 600 ~${u}/.ssh/authorized_keys`,
    "sudo apt-get install -y bubblewrap",
  ].join(" && ");
}
