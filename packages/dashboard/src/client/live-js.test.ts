import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sseFrame } from "../streams.js";
import { LIVE_JS } from "./live-js.js";

type Status = [state: string, text: string];
interface Feed {
  stop(): void;
}
type LiveFeed = (options: Record<string, unknown>) => Feed;

/** The page's own code, as the browser runs it. */
const liveFeed = new Function(`${LIVE_JS}\nreturn liveFeed;`)() as LiveFeed;
const encoder = new TextEncoder();

/** A streaming answer whose events the test pushes, and ends or breaks, by hand. */
function streamingAnswer() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    response: new Response(body, { headers: { "content-type": "text/event-stream" } }),
    send: (name: string, data: unknown) => controller.enqueue(encoder.encode(sseFrame(name, data))),
    end: () => controller.close(),
    fail: () => controller.error(new Error("connection reset")),
  };
}

function refusal(status: number, message: string, retryAfter?: string): Response {
  const headers: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": retryAfter };
  return new Response(JSON.stringify({ error: { message, type: "x", code: "x", param: null } }), {
    status,
    headers,
  });
}

/** Starts the feed with `answers` for its successive connections; records statuses and events. */
function start(answers: Array<() => Response | Promise<Response>>) {
  const statuses: Status[] = [];
  const events: Array<[string, unknown]> = [];
  let calls = 0;
  const feed = liveFeed({
    url: "/dashboard/api/events",
    fetch: async () => {
      const answer = answers[calls++];
      if (answer === undefined) throw new TypeError("Failed to fetch");
      return answer();
    },
    setTimer: (callback: () => void, ms: number) => setTimeout(callback, ms),
    clearTimer: (handle: ReturnType<typeof setTimeout>) => clearTimeout(handle),
    random: () => 0.5, // no jitter
    onStatus: (state: string, text: string) => statuses.push([state, text]),
    onEvent: (name: string, data: unknown) => events.push([name, data]),
  });
  return { feed, statuses, events, connections: () => calls };
}

const last = (statuses: Status[]) => statuses.at(-1);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the page's live feed", () => {
  it("after a 503 says why, waits Retry-After, reconnects and goes live", async () => {
    const live = streamingAnswer();
    const { feed, statuses, events, connections } = start([
      () => refusal(503, "Too many live streams (at most 8 for viewers who are not operators)", "5"),
      () => live.response,
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(last(statuses)).toEqual([
      "retrying",
      "refused (503): Too many live streams (at most 8 for viewers who are not operators); reconnecting in 5 s",
    ]);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(connections()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(connections()).toBe(2);
    live.send("history", { data: [] });
    live.send("snapshot", { at: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(last(statuses)).toEqual(["live", "live"]);
    expect(events).toEqual([
      ["history", { data: [] }],
      ["snapshot", { at: 1 }],
    ]);
    feed.stop();
  });

  it("backs off 1, 2, 4, ... up to 30 s while refused, and starts again at 1 s once live", async () => {
    const live = streamingAnswer();
    const refused = () => refusal(403, "Live data are shown to authorized viewers only");
    const { feed, statuses, connections } = start([...Array(7).fill(refused), () => live.response]);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      await vi.advanceTimersByTimeAsync(0);
      expect(connections()).toBe(attempt);
      const text = last(statuses)![1];
      expect(text).toMatch(
        /^refused \(403\): Live data are shown to authorized viewers only; reconnecting in/,
      );
      const seconds = Number(/in (\d+) s$/.exec(text)![1]);
      delays.push(seconds);
      await vi.advanceTimersByTimeAsync(seconds * 1_000);
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 30, 30]);
    expect(connections()).toBe(8);
    live.send("snapshot", { at: 2 });
    live.fail(); // the stream drops after a snapshot: the next wait is short again
    await vi.advanceTimersByTimeAsync(0);
    expect(last(statuses)).toEqual(["retrying", "the stream dropped; reconnecting in 1 s"]);
    feed.stop();
  });

  it("reconnects when the stream ends or the server cannot be reached, and stop() ends it all", async () => {
    const first = streamingAnswer();
    const { feed, statuses, connections } = start([() => first.response]);
    await vi.advanceTimersByTimeAsync(0);
    first.send("snapshot", { at: 3 });
    first.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(last(statuses)).toEqual(["retrying", "the stream ended; reconnecting in 1 s"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(connections()).toBe(2);
    expect(last(statuses)).toEqual(["retrying", "cannot reach the server; reconnecting in 2 s"]);
    feed.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(connections()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });
});
