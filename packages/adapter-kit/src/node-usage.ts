import type { TokenUsage } from "@llm-scheduler/core";
import { carriesUsage, UsageSniffer } from "./usage-sniffer.js";

/** The part of Node's `http.ServerResponse` that {@link watchNodeUsage} wraps. */
export interface NodeWritableLike {
  getHeader(name: string): unknown;
  write(...args: never[]): boolean;
  end(...args: never[]): unknown;
}

type Writer = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Reads the upstream's `usage` from what a handler sends through this Node response (a JSON answer, or
 * an SSE stream that ends with a usage chunk) and hands it to `report` when the response ends. Only
 * JSON and event-stream responses are read, only their last 16 KB are kept; `report` failing never
 * breaks the response. A response without `write`, `end` and `getHeader` is left alone.
 *
 * @example
 * watchNodeUsage(res, (usage) => slot.reportUsage(usage));
 */
export function watchNodeUsage(response: NodeWritableLike, report: (usage: TokenUsage) => void): void {
  const target = response as unknown as { write?: Writer; end?: Writer; getHeader?: unknown };
  if (typeof target.write !== "function" || typeof target.end !== "function") return;
  if (typeof target.getHeader !== "function") return;
  const sniffer = new UsageSniffer();
  let readable: boolean | undefined;
  const sniff = (chunk: unknown): void => {
    readable ??= carriesUsage(String(response.getHeader("content-type") ?? ""));
    if (readable && (typeof chunk === "string" || chunk instanceof Uint8Array)) sniffer.feed(chunk);
  };
  const write = target.write;
  const end = target.end;
  target.write = function sniffingWrite(chunk, ...rest) {
    sniff(chunk);
    return write.call(this, chunk, ...rest);
  };
  target.end = function sniffingEnd(chunk, ...rest) {
    if (typeof chunk !== "function") sniff(chunk);
    const usage = readable === true ? sniffer.usage() : undefined;
    if (usage !== undefined) {
      try {
        report(usage);
      } catch {
        // A usage the scheduler refuses (out of range) is not worth failing the response for.
      }
    }
    return end.call(this, chunk, ...rest);
  };
}
