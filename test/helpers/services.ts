// The one Services object for tests (docs/development.md#how-the-code-is-laid-out):
// the real parts the test kernel was created with, what the test passes, and
// for every other service a stand-in that fails loudly when the code under
// test reaches it, saying how to wire it. A tRPC context and caller are made
// from the same object, as the server makes them.
import { createCaller, type Context } from "@/server/api";
import type { ImproveRuntime, Services } from "@/server/app";
import { LinkThrottle, type Actor } from "@/server/identity";
import { HostedPrograms } from "@/server/hosted";
import type { ChangeRequests } from "@/server/improve";
import type { Db } from "@/server/db";
import type { TestKernel } from "./kernel";

/** Each service, and the createTestKernel option that builds it (null: the test passes it in overrides). */
const KERNEL_OPTIONS = {
  db: null,
  kernel: null,
  compute: null,
  hitl: "hitl",
  policy: "hitl",
  telemetry: "telemetry",
  models: "models",
  keyring: "secrets",
  tiers: null,
  experiments: null,
  improve: null,
  mcp: null,
  hosted: null,
  gatewayKeys: null,
  devices: null,
  webhooks: null,
  system: null,
  retention: null,
} as const satisfies Record<keyof Services, string | null>;

/** What a caller reads to learn what a value is (await, printing, test matchers): absent on a stand-in, not a failure. */
const PROBES = new Set(["then", "toJSON", "asymmetricMatch", "$$typeof", "constructor", "nodeType", "@@__IMMUTABLE_ITERABLE__@@"]);

/** A stand-in whose every use throws `message`; awaiting, printing or comparing it is safe. */
export function notWired<T extends object>(message: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      if (typeof prop === "symbol" || PROBES.has(prop)) return undefined;
      throw new Error(message);
    },
  });
}

function notWiredService<K extends keyof Services>(name: K): Services[K] {
  const option = KERNEL_OPTIONS[name];
  const how =
    name === "kernel"
      ? "pass it in overrides or create a test kernel (createTestKernel) instead of a test database"
      : `pass it in overrides${option ? ` or create the test kernel with { ${option}: true }` : ""}`;
  return notWired(`testServices: ${name} is not wired in this test; ${how}`);
}

/** A test's self-improvement: an Improve built without change requests, or the few members of the runtime a test fakes. */
export type TestImprove = Partial<Omit<ImproveRuntime, "changes">> & { changes?: ChangeRequests | null };

const IMPROVE_MEMBERS = new Set<string | symbol>(["live", "reload", "promote", "skills", "changes", "extensionRegistry"]);

/** The given runtime, whose missing members fail loudly when used. */
function improveOf(given: TestImprove): ImproveRuntime {
  return new Proxy(given, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (value == null && IMPROVE_MEMBERS.has(prop))
        throw new Error(
          prop === "changes"
            ? "testServices: improve.changes is not wired in this test; build the Improve with its change requests (Improve.withChanges)"
            : `testServices: improve.${String(prop)} is not wired in this test; pass it in overrides.improve`,
        );
      return value;
    },
  }) as ImproveRuntime;
}

export type ServiceOverrides = Partial<Omit<Services, "improve">> & { improve?: TestImprove };

/** A test kernel, or a database alone for tests (and benchmarks) that pass what else they need. */
type Source = TestKernel | { db: Db };

/**
 * The services of `from`: a test kernel's hitl, policy, telemetry, models and
 * keyring when it was created with them, then `overrides`; every other
 * service fails when used.
 */
export function testServices(from: Source, overrides: ServiceOverrides = {}): Services {
  const tk = "t" in from ? from : null;
  const { improve, ...given } = overrides;
  const built: Partial<Services> = {
    db: tk ? tk.t.db : (from as { db: Db }).db,
    kernel: tk?.kernel,
    hitl: tk?.hitl && { broker: tk.hitl.broker, links: tk.hitl.links },
    policy: tk?.hitl?.policy,
    telemetry: tk?.telemetry,
    models: tk?.models?.admin,
    keyring: tk?.keyring,
    improve: improve && improveOf(improve),
    // Light and local (the catalog, the database, installs it starts): every test gets a real one.
    hosted: new HostedPrograms({ db: tk ? tk.t.db : (from as { db: Db }).db }),
  };
  const services: Record<string, unknown> = {};
  for (const name of Object.keys(KERNEL_OPTIONS) as Array<keyof Services>) {
    services[name] = given[name as keyof typeof given] ?? built[name] ?? notWiredService(name);
  }
  return services as unknown as Services;
}

export type ContextOverrides = ServiceOverrides & Partial<Pick<Context, "linkBase" | "clientAddress" | "linkThrottle">>;

/** A tRPC context as createTrpcHandler makes one, for `actor`; links point at Rein's default address unless told. */
export function trpcContext(from: Source, actor: Actor | null, overrides: ContextOverrides = {}): Context {
  const { linkBase = "http://localhost:3000", clientAddress = null, linkThrottle = new LinkThrottle(), ...services } = overrides;
  return { ...testServices(from, services), actor, linkBase, clientAddress, linkThrottle };
}

/** tRPC's procedures called as `actor`, without HTTP. */
export function callerFor(from: Source, actor: Actor | null, overrides: ContextOverrides = {}) {
  return createCaller(trpcContext(from, actor, overrides));
}
