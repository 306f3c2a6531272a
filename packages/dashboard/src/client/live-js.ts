/**
 * The page's live feed, served inside `app.js`: reads the Server-Sent Events with `fetch` (so that a
 * refusal's status and message can be shown, which `EventSource` hides) and reconnects after a refusal
 * or a dropped stream, with exponential backoff (1 s doubling to 30 s, ±20% jitter, never sooner than
 * the server's `Retry-After`), saying why on the page. Everything it touches is passed in, so that a
 * unit test drives it with fake timers and a fake `fetch`.
 */
export const LIVE_JS = `
const LIVE_MIN_MS = 1000;
const LIVE_MAX_MS = 30000;

/** Splits a stream of SSE text into events: calls emit(name, parsedData) for each one with data. */
async function readEvents(body, emit) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end = buffer.indexOf("\\n\\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data !== "") emit(name, JSON.parse(data));
      end = buffer.indexOf("\\n\\n");
    }
  }
}

async function refusalText(response) {
  let message = "";
  try {
    message = String((await response.json()).error.message);
  } catch (error) {
    // not an OpenAI-style error body
  }
  return "refused (" + response.status + ")" + (message === "" ? "" : ": " + message);
}

/**
 * options: { url, fetch, setTimer, clearTimer, random, onEvent(name, data), onStatus(state, text) };
 * state is "connecting", "live" or "retrying". Returns { stop() }.
 */
function liveFeed(options) {
  let failures = 0;
  let stopped = false;
  let controller = null;
  let timer = null;

  function retry(reason, retryAfterSec) {
    if (stopped) return;
    const backoff = Math.min(LIVE_MAX_MS, LIVE_MIN_MS * Math.pow(2, failures)) * (0.8 + 0.4 * options.random());
    const delay = Math.max(backoff, retryAfterSec > 0 ? retryAfterSec * 1000 : 0);
    failures++;
    options.onStatus("retrying", reason + "; reconnecting in " + Math.ceil(delay / 1000) + " s");
    timer = options.setTimer(connect, delay);
  }

  async function connect() {
    timer = null;
    if (stopped) return;
    options.onStatus("connecting", "connecting…");
    controller = new AbortController();
    let response;
    try {
      response = await options.fetch(options.url, {
        headers: { accept: "text/event-stream" },
        cache: "no-store",
        signal: controller.signal,
      });
    } catch (error) {
      return retry("cannot reach the server", 0);
    }
    if (!response.ok || response.body === null) {
      return retry(await refusalText(response), Number(response.headers.get("retry-after")) || 0);
    }
    try {
      await readEvents(response.body, (name, data) => {
        if (name === "snapshot") {
          failures = 0;
          options.onStatus("live", "live");
        }
        options.onEvent(name, data);
      });
      retry("the stream ended", 0);
    } catch (error) {
      retry("the stream dropped", 0);
    }
  }

  connect();
  return {
    stop() {
      stopped = true;
      if (controller !== null) controller.abort();
      if (timer !== null) options.clearTimer(timer);
    },
  };
}
`;
