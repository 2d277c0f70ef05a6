// GET /v1/models (docs/gateway.md#endpoints): the names a client may ask for.
// One list serves both vendors' clients: OpenAI's fields (object, created,
// owned_by) and Anthropic's (type, display_name, created_at, has_more).
import { sendJson } from "./http";
import type { Exchange } from "./exchange";

/** The name every run and key answers to, whatever model routing picks. */
export const GATEWAY_MODEL_ALIAS = "rein";

export async function listModels(x: Exchange): Promise<void> {
  const { ids, since } = await x.caller.models();
  const created = Math.floor(since / 1000);
  const createdAt = new Date(since).toISOString();
  const data = ids.map((id) => ({
    id,
    object: "model",
    created,
    owned_by: "rein",
    type: "model",
    display_name: id,
    created_at: createdAt,
  }));
  sendJson(x.res, 200, { object: "list", data, has_more: false, first_id: ids[0], last_id: ids.at(-1) });
}
