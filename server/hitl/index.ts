// HITLBroker (I6, docs/human-requests-and-policy.md): human requests, the token
// contract, the TTL ladder, audit. The kernel sees it through the ToolRunner's
// CallGate and KernelDeps.humans; people reach it through the inbox, links,
// REST and CLI.
import type { Kernel } from "@/server/kernel";
import { isTerminal, type RunState } from "@/server/kernel";
import type { HitlBroker } from "./broker";

export * from "./types";
export * from "./states";
export { DEFAULT_LADDER, ladderFromEnv, parseDuration, type TtlLadder } from "./ladder";
export { HitlBroker, type BrokerDeps } from "./broker";
export { RequestBus, type RequestChange } from "./bus";
export { HumanGate, type HumanGateDeps, type PolicyDecider } from "./gate";
export { createRequest, type RequestFilter, type NewRequest } from "./requests";
export {
  listForActor,
  getForActor,
  forActor,
  deciderOf,
  canSee,
  requestContext,
  type ActorRequestView,
  type Hitl,
  type InboxFilter,
} from "./service";
export {
  createResumeLink,
  openResumeLink,
  decideWithLink,
  LinkError,
  type LinkContext,
  type LinkErrorCode,
  type CreatedResumeLink,
} from "./links";
export { openLinkKeyRing, memoryKeyRing, newKeyRecord, type LinkKeyRing } from "./keys";
export { signToken, verifyToken, hashResumeToken } from "./tokens";
export { attentionFigures, median, type AttentionFigures, type ChannelFigure } from "./attention";

/**
 * Connects the broker to a kernel built with its HumanGate: waiting runs come
 * back through the broker, and a run that ends takes its open requests with it.
 */
export function connectHitl(kernel: Kernel, broker: HitlBroker, log?: { error(msg: string, err?: unknown): void }): () => void {
  kernel.deps.humans = broker;
  return kernel.bus.onAny((runId, events) => {
    for (const e of events) {
      if (e.type !== "run.state") continue;
      const to = (e.payload as { to: RunState }).to;
      if (isTerminal(to)) {
        broker
          .cancelForRun(runId, `The run ended (${to})`)
          .catch((err) => log?.error(`run ${runId}: canceling its human requests failed`, err));
      }
    }
  });
}
