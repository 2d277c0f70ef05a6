// The zod schemas of everything a device sends (docs/devices.md#the-protocol).
// A device is hostile until its token is checked and after: every field is
// bounded, every object strict, so a frame that is not the protocol is refused
// whole rather than half-read.
import { z } from "zod";
import { DEVICE_MAX_SHELL_CHUNK, DEVICE_PROTOCOL_VERSION, DEVICE_TOKEN_LENGTH } from "@/lib/device-protocol";

const Short = z.string().max(200);

export const DeviceCapabilitiesSchema = z
  .object({
    os: z.string().min(1).max(40),
    arch: z.string().min(1).max(40),
    cpus: z.number().int().min(0).max(4096),
    memoryMb: z
      .number()
      .int()
      .min(0)
      .max(1 << 30),
    hostname: Short,
    hardware: z
      .array(
        z
          .string()
          .min(1)
          .max(40)
          .regex(/^[a-z0-9][a-z0-9._-]*$/, "A piece of hardware is a short lower-case word (usb, gpu, camera)"),
      )
      .max(32),
    agentVersion: z.string().min(1).max(40),
    commands: z.enum(["none", "any"]),
    confined: z.boolean(),
  })
  .strict();

export const SessionId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);

const RequestId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const HelloFrame = z
  .object({
    t: z.literal("hello"),
    token: z.string().min(1).max(DEVICE_TOKEN_LENGTH),
    version: z.number().int().min(1).max(DEVICE_PROTOCOL_VERSION),
    capabilities: DeviceCapabilitiesSchema,
  })
  .strict();

/** Every frame a device may send after its hello. */
export const DeviceFrameSchema = z.discriminatedUnion("t", [
  z
    .object({
      t: z.literal("res"),
      id: RequestId,
      ok: z.boolean(),
      result: z.unknown().optional(),
      error: z
        .object({ code: z.string().min(1).max(64), message: z.string().max(2000) })
        .strict()
        .optional(),
    })
    .strict(),
  z.object({ t: z.literal("shell.data"), session: SessionId, data: z.string().max(DEVICE_MAX_SHELL_CHUNK * 2) }).strict(),
  z.object({ t: z.literal("shell.exit"), session: SessionId, code: z.number().int().min(-1).max(1000).nullable() }).strict(),
  z.object({ t: z.literal("pong") }).strict(),
]);

export const PairBody = z
  .object({
    code: z.string().min(1).max(32),
    name: z.string().trim().min(1, "A device needs a name").max(80, "A device's name has at most 80 characters"),
    capabilities: DeviceCapabilitiesSchema,
  })
  .strict();
export type PairBody = z.infer<typeof PairBody>;

/** What the results of the operations must look like, before the hub hands them to its caller. */
export const ConsentResultSchema = z.object({ granted: z.boolean(), by: z.enum(["owner", "auto"]) }).strict();
