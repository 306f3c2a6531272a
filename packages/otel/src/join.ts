import { context, propagation, type TextMapGetter } from "@opentelemetry/api";

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
 * middleware in front of the scheduler's, in any framework; with HTTP instrumentation that already did
 * it, the active context is kept.
 *
 * @example
 * app.use((req, _res, next) => joinTrace(req.headers, next)); // Express
 * app.use((ctx, next) => joinTrace(ctx.headers, next)); // Koa
 * app.use((c, next) => joinTrace(c.req.raw.headers, next)); // Hono
 */
export function joinTrace<T>(headers: IncomingHeaders, next: () => T): T {
  return context.with(propagation.extract(context.active(), headers, getter), next);
}
