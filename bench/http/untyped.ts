// Express, Koa and autocannon ship no types of their own, and this package adds no @types packages
// (an ambient `declare module` would leak into the one type-check program that covers every package).
// They are loaded here with the few members the benchmark uses, typed locally.

import type { RequestListener } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export interface ExpressApp extends RequestListener {
  use(path: string, handler: unknown): void;
  get(path: string, handler: (req: unknown, res: { json(body: unknown): void }) => void): void;
}
export const express = require("express") as () => ExpressApp;

export interface KoaApp {
  use(middleware: unknown): void;
  callback(): RequestListener;
}
export interface KoaContext {
  readonly path: string;
  readonly res: import("node:http").ServerResponse;
  status: number;
  body: unknown;
}
export const Koa = require("koa") as new () => KoaApp;

export interface AutocannonResult {
  readonly duration: number;
  readonly requests: { readonly total: number; readonly average: number };
  readonly latency: { readonly p50: number; readonly p99: number; readonly average: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}
export const autocannon = require("autocannon") as (options: {
  url: string;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;
