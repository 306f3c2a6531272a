import type { HeaderReader } from "@llm-scheduler/core/kit";
import { context, propagation, type TextMapGetter, trace } from "@opentelemetry/api";

/**
 * Request headers as the frameworks hold them: Node's parsed object (Express, Koa) or web `Headers` (Hono).
 *
 * @example
 * const headers: IncomingHeaders = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
 */
export type IncomingHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null; forEach(fn: (value: string, key: string) => void): void };

const getter: TextMapGetter<IncomingHeaders> = {
  keys(carrier) {
    if (typeof carrier.get === "function") {
      const keys: string[] = [];
      const headers = carrier as { forEach(fn: (value: string, key: string) => void): void };
      headers.forEach((_, key) => {
        keys.push(key);
      });
      return keys;
    }
    return Object.keys(carrier);
  },
  get(carrier, key) {
    if (typeof carrier.get === "function")
      return (carrier as { get(name: string): string | null }).get(key) ?? undefined;
    const value = (carrier as Record<string, string | readonly string[] | undefined>)[key.toLowerCase()];
    return typeof value === "string" ? value : value?.[0];
  },
};

/**
 * Runs `next` inside the trace the client sent (`traceparent`, through the propagator installed with
 * the OpenTelemetry SDK), so the spans the scheduler makes for this request join it. A one-line
 * middleware in front of the scheduler's, in any framework; with a span already active (HTTP
 * instrumentation), the active context is kept. The adapters given `traced.scheduler` do it themselves.
 *
 * @example
 * app.use((req, _res, next) => joinTrace(req.headers, next)); // Express
 * app.use((ctx, next) => joinTrace(ctx.headers, next)); // Koa
 * app.use((c, next) => joinTrace(c.req.raw.headers, next)); // Hono
 */
export function joinTrace<T>(headers: IncomingHeaders, next: () => T): T {
  const active = context.active();
  if (trace.getSpan(active) !== undefined) return next(); // HTTP instrumentation has joined it already
  return context.with(propagation.extract(active, headers, getter), next);
}

/** Reads one header by its lower-case name, as the adapters do. */
const readerGetter: TextMapGetter<HeaderReader> = {
  keys: () => [], // the trace context propagators ask for their headers by name
  get: (read, key) => read(key.toLowerCase()) ?? undefined,
};

/**
 * {@link joinTrace} for the adapters, which read headers through a function: runs `fn` inside the
 * trace the request carries, unless a span is active already.
 *
 * @example
 * joinByReader((name) => req.headers[name] as string | undefined, () => traced.acquire());
 */
export function joinByReader<T>(header: HeaderReader, fn: () => T): T {
  const active = context.active();
  if (trace.getSpan(active) !== undefined) return fn();
  return context.with(propagation.extract(active, header, readerGetter), fn);
}
