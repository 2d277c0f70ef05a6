// A fetch that gives up on a silent connection: the request is aborted when
// no response headers, and then no body bytes, arrive for `timeoutMs`. The
// timer restarts on every chunk, so a long stream that keeps talking is never
// cut, while a hung one fails within `timeoutMs`. The caller's own signal
// still aborts it.

export type Fetch = typeof globalThis.fetch;

/** The abort reason when the connection went silent; classified as a timeout. */
export class ProviderTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No response for ${timeoutMs} ms`);
    // The AI SDK passes errors with this name through as aborts, untouched.
    this.name = "TimeoutError";
  }
}

export function fetchWithTimeout(timeoutMs: number, base: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearTimeout(timer);
    const arm = () => {
      stop();
      timer = setTimeout(() => controller.abort(new ProviderTimeout(timeoutMs)), timeoutMs);
    };
    const caller = init?.signal;
    caller?.addEventListener("abort", stop, { once: true });
    const signal = caller ? AbortSignal.any([caller, controller.signal]) : controller.signal;
    arm();
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      stop();
      throw controller.signal.aborted ? controller.signal.reason : error;
    }
    if (!response.body) {
      stop();
      return response;
    }
    arm();
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            stop();
            out.close();
            return;
          }
          arm();
          out.enqueue(value);
        } catch (error) {
          stop();
          out.error(controller.signal.aborted ? controller.signal.reason : error);
        }
      },
      cancel(reason) {
        stop();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
