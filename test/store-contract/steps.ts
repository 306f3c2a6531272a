// The steps both conformance properties share (the memory and the Redis store driven alike): release
// or remove the k-th known ticket, or change the global limit. Each property adds its own arrivals and
// clock advances, whose values differ.
import fc from "fast-check";

/** Releases the k-th known ticket (modulo the tickets known when the step runs). */
export const releaseStep = {
  weight: 4,
  arbitrary: fc.record({ kind: fc.constant("release" as const), k: fc.nat() }),
};

/** Removes the k-th known ticket. */
export const removeStep = {
  weight: 1,
  arbitrary: fc.record({ kind: fc.constant("remove" as const), k: fc.nat() }),
};

/** Configures the store with a new global limit of 1 to 5. */
export const configureStep = {
  weight: 1,
  arbitrary: fc.record({ kind: fc.constant("configure" as const), max: fc.integer({ min: 1, max: 5 }) }),
};
