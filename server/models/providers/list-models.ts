// GET <baseUrl>/models for the "Test" button: the model ids a provider
// offers, or why it cannot be reached (as a ProviderError).
import { ProviderError, providerErrorFromStatus } from "../errors";
import { DEFAULT_TIMEOUT_MS, type ListModelsConfig, type ListModelsResult } from "./config";
import { classifyError } from "./ai-sdk/errors";
import { fetchWithTimeout } from "./ai-sdk/fetch";

const MAX_PAGES = 20;
/** The most of one page of a model list Rein reads (the longest public lists are about 1 MB): docs/security.md#what-external-servers-send. */
export const MAX_MODEL_LIST_BYTES = 4 * 1024 * 1024;

/** The body as text, or null past `max` bytes (the rest is never read). */
async function readCapped(response: Response, max: number): Promise<string | null> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return Buffer.concat(chunks).toString("utf8");
      size += value.length;
      if (size > max) return null;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

interface ModelsPage {
  data?: Array<{ id?: unknown }>;
  has_more?: boolean;
  last_id?: string;
}

export async function listModelIds(
  config: ListModelsConfig & { baseUrl: string; name: string },
  headers: Record<string, string>,
  /** Anthropic pages its list; the next page's URL, or null when done. */
  nextPage: (page: ModelsPage, url: URL) => URL | null = () => null,
): Promise<ListModelsResult> {
  const fetch = fetchWithTimeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS, config.fetch);
  const secrets = [config.apiKey];
  const ids: string[] = [];
  let url: URL | null = new URL(`${config.baseUrl.replace(/\/+$/, "")}/models`);
  try {
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const response = await fetch(url, { headers });
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        // Status only: the body is whatever answers at the URL an admin typed, and Test must not read it back to them.
        const error = providerErrorFromStatus({ status: response.status, headers: response.headers, provider: config.name });
        return { ok: false, error: classifyError(error, { provider: config.name, secrets }) };
      }
      const text = await readCapped(response, MAX_MODEL_LIST_BYTES);
      if (text === null) {
        return {
          ok: false,
          error: new ProviderError({
            kind: "bad_request",
            provider: config.name,
            message: `${config.name}: ${url.pathname} answered with a model list larger than ${MAX_MODEL_LIST_BYTES / 1024 / 1024} MiB; Rein reads no more of it`,
          }),
        };
      }
      let body: ModelsPage;
      try {
        body = JSON.parse(text) as ModelsPage;
      } catch {
        body = {};
      }
      if (!Array.isArray(body.data)) {
        return {
          ok: false,
          error: new ProviderError({
            kind: "bad_request",
            provider: config.name,
            message: `${config.name}: ${url.pathname} did not answer with a model list`,
          }),
        };
      }
      for (const m of body.data) if (typeof m?.id === "string") ids.push(m.id);
      url = nextPage(body, url);
    }
  } catch (error) {
    return { ok: false, error: classifyError(error, { provider: config.name, secrets }) };
  }
  return { ok: true, models: ids };
}
