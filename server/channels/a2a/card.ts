// An exposed agent's card (docs/a2a.md#cards), signed with Rein's card key as
// A2A 1.0 describes: a JWS over the card's canonical JSON, its key named by
// `kid` and found at `jku`. A card says what the agent is called and does,
// where to send tasks and how to authenticate; nothing of teams, other agents
// or the agent's instructions.
import { AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import type { Db } from "@/server/db";
import type { ExposedAgent } from "./exposure";
import type { CardSigner } from "./signing";

export const A2A_PROTOCOL = "1.0";
export const A2A_PREFIX = "/a2a";
export const JWKS_PATH = `${A2A_PREFIX}/jwks.json`;
export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";
export const BEARER_SCHEME = "reinApiToken";

export const agentUrl = (base: string, id: string) => `${base}${A2A_PREFIX}/agents/${id}`;
export const agentCardUrl = (base: string, id: string) => `${agentUrl(base, id)}${WELL_KNOWN_CARD_PATH}`;

/** The card of an exposed agent, unsigned; null when the agent is gone or archived. */
export async function unsignedCard(db: Db, exposed: ExposedAgent, base: string): Promise<AgentCard | null> {
  const agent = await db.agent.findUnique({ where: { name: exposed.agent }, select: { archivedAt: true } });
  if (!agent || agent.archivedAt) return null;
  const spec = await db.agentSpec.findFirst({
    where: { name: exposed.agent, draft: false },
    orderBy: { version: "desc" },
    select: { version: true, description: true },
  });
  if (!spec) return null;
  const description = spec.description.trim() || `Rein's agent ${exposed.agent}`;
  return {
    name: exposed.agent,
    description,
    supportedInterfaces: [{ url: agentUrl(base, exposed.id), protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL, tenant: "" }],
    provider: { organization: "Rein", url: base },
    version: String(spec.version),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [BEARER_SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { scheme: "Bearer", bearerFormat: "Rein API token", description: "A Rein API token (Settings › API tokens)" },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: "run",
        name: `Run ${exposed.agent}`,
        description: `Runs ${exposed.agent} on the task's message as its goal. ${description}`,
        tags: ["rein"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The card as JSON, with Rein's signature. */
export async function signedCardJson(card: AgentCard, signer: CardSigner, base: string): Promise<unknown> {
  const key = await signer.current();
  const sign = generateAgentCardSignature(key.privateKey, { alg: "EdDSA", typ: "JOSE", kid: key.kid, jku: `${base}${JWKS_PATH}` });
  return AgentCard.toJSON(await sign(card));
}
