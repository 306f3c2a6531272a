import type { Random } from "./prng.js";

const fillerWords = [
  "the",
  "model",
  "token",
  "stream",
  "batch",
  "queue",
  "latency",
  "request",
  "server",
  "answer",
  "simple",
  "quick",
  "steady",
  "signal",
  "window",
  "budget",
  "prompt",
  "cache",
  "kernel",
  "layer",
  "vector",
  "weight",
  "sample",
  "result",
  "value",
  "state",
  "order",
  "river",
  "stone",
  "light",
  "green",
  "calm",
] as const;

/**
 * Estimates the tokens of a text as one token per four characters, rounded up (at least 1 for
 * non-empty text), the usual rule of thumb for English.
 *
 * @example
 * estimateTokens("Hello, world"); // 3
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Returns a generator of filler tokens: each call gives one word, with a leading space after the
 * first, so the tokens concatenate into readable text.
 *
 * @example
 * const next = createFiller(createRandom(1));
 * next() + next(); // e.g. "stream calm"
 */
export function createFiller(random: Random): () => string {
  let first = true;
  return () => {
    const word = fillerWords[Math.floor(random() * fillerWords.length)] ?? "token";
    const token = first ? word : ` ${word}`;
    first = false;
    return token;
  };
}
