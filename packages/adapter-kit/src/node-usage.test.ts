import { describe, expect, it } from "vitest";
import { watchNodeUsage } from "./node-usage.js";

function fakeResponse(contentType: string) {
  const written: unknown[] = [];
  return {
    written,
    getHeader: (name: string) => (name === "content-type" ? contentType : undefined),
    write(chunk: unknown) {
      written.push(chunk);
      return true;
    },
    end(chunk?: unknown) {
      if (chunk !== undefined) written.push(chunk);
      return this;
    },
  };
}

describe("watchNodeUsage", () => {
  it("reports the usage of a JSON answer once the response ends, passing every chunk on", () => {
    const response = fakeResponse("application/json; charset=utf-8");
    const reports: unknown[] = [];
    watchNodeUsage(response, (usage) => reports.push(usage));
    response.write('{"usage":{"prompt_tokens":3,');
    expect(reports).toEqual([]);
    response.end('"completion_tokens":4}}');
    expect(reports).toEqual([{ inputTokens: 3, outputTokens: 4 }]);
    expect(response.written.join("")).toBe('{"usage":{"prompt_tokens":3,"completion_tokens":4}}');
  });

  it("ignores other content types and survives a report that throws", () => {
    const text = fakeResponse("text/plain");
    const reports: unknown[] = [];
    watchNodeUsage(text, (usage) => reports.push(usage));
    text.end('{"usage":{"prompt_tokens":3}}');
    expect(reports).toEqual([]);
    const json = fakeResponse("application/json");
    watchNodeUsage(json, () => {
      throw new Error("refused");
    });
    expect(() => json.end('{"usage":{"prompt_tokens":3}}')).not.toThrow();
    expect(json.written).toHaveLength(1);
  });
});
