import { describe, expect, it } from "vitest";
import { createRoutingKey } from "./routing-key.js";

const chat = (system: string, ...users: string[]) => ({
  model: "m",
  messages: [{ role: "system", content: system }, ...users.map((content) => ({ role: "user", content }))],
});

describe("createRoutingKey", () => {
  const key = createRoutingKey();

  it("gives the same key to requests that share the system prompt and first message", () => {
    const a = key(chat("You are the assistant of team A.", "Hello", "first question"));
    const b = key(chat("You are the assistant of team A.", "Hello", "another question"));
    expect(a).toMatch(/^p:[0-9a-f]{8}$/);
    expect(b).toBe(a);
    expect(key(chat("You are the assistant of team B.", "Hello"))).not.toBe(a);
    expect(key(chat("You are the assistant of team A.", "Bonjour"))).not.toBe(a);
  });

  it("hashes at most prefixChars characters, so prompts that differ only later share a key", () => {
    const short = createRoutingKey({ prefixChars: 32, firstMessages: 0 });
    const preamble = "x".repeat(40);
    expect(short(chat(`${preamble} one`))).toBe(short(chat(`${preamble} two`)));
    expect(key(chat(`${preamble} one`))).not.toBe(key(chat(`${preamble} two`)));
  });

  it("reads text parts of array contents, and completions' prompt", () => {
    const parts = {
      messages: [
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
        { role: "user", content: "Hi" },
      ],
    };
    expect(key(parts)).toBe(key(chat("Be brief.", "Hi")));
    expect(key({ prompt: "Once upon a time" })).toBe(key({ prompt: "Once upon a time" }));
    expect(key({ prompt: "Once upon a time" })).toMatch(/^p:/);
  });

  it("gives a session key from the user field, and from the configured header first", () => {
    const byUser = key({ ...chat("S", "Hi"), user: "alice" });
    expect(byUser).toMatch(/^u:/);
    expect(key({ ...chat("T", "Yo"), user: "alice" })).toBe(byUser);
    const withHeader = createRoutingKey({ sessionHeader: "x-session-id" });
    const fromHeaders = withHeader({ ...chat("S"), user: "alice" }, new Headers({ "x-session-id": "s-1" }));
    expect(fromHeaders).toMatch(/^s:/);
    expect(withHeader(chat("T"), { "x-session-id": "s-1" })).toBe(fromHeaders);
    expect(withHeader(chat("T"), { "x-session-id": ["s-1", "s-2"] })).toBe(fromHeaders);
    expect(createRoutingKey({ user: false })({ ...chat("S", "Hi"), user: "alice" })).toBe(
      key(chat("S", "Hi")),
    );
  });

  it("never throws on a body it cannot read: no key", () => {
    for (const body of [
      null,
      undefined,
      7,
      "text",
      [],
      {},
      { messages: [] },
      { messages: "x" },
      { prompt: "" },
    ]) {
      expect(key(body)).toBeUndefined();
    }
    expect(key({ messages: [null, { role: 3, content: { a: 1 } }] })).toMatch(/^p:/);
  });

  it("checks its options", () => {
    expect(() => createRoutingKey({ prefixChars: 8 })).toThrowError(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
    expect(() => createRoutingKey({ sessionHeader: "X Session" })).toThrowError(/sessionHeader/);
    expect(() => createRoutingKey({ header: "x" } as never)).toThrowError(/Unknown option `header`/);
  });
});
