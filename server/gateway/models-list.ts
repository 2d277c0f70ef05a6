// GET /v1/models (docs/gateway.md#endpoints): the names an agent may ask for.
// One list serves both vendors' clients: OpenAI's fields (object, created,
// owned_by) and Anthropic's (type, display_name, created_at, has_more).
import { sendJson } from "./http";
import type { Exchange } from "./exchange";

/** The name every run answers to, whatever model routing picks. */
export const GATEWAY_MODEL_ALIAS = "rein";

export async function listModels(x: Exchange): Promise<void> {
  const { run } = x.binding;
  const ids = [...new Set([run.model, GATEWAY_MODEL_ALIAS, ...(run.advertised ?? [])])];
  const created = Math.floor(x.binding.boundAt / 1000);
  const createdAt = new Date(x.binding.boundAt).toISOString();
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
