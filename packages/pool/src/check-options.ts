import { createScheduler, isSchedulerError } from "@llm-scheduler/core";
import {
  type PoolOptions,
  resolveHealth,
  resolveReplicas,
  resolveRetries,
  resolveSchedulerLimit,
  resolveSignals,
} from "./options.js";
import { resolveKeyOf, resolveRouter } from "./request-routing.js";
import { resolveShared } from "./shared-options.js";

/**
 * Checks `options` as `createPool()` does, without starting anything (no scheduler, no checks, no
 * scrapes): for a tool that reads a pool from a file and must refuse it before serving. Throws core's
 * `SchedulerError` `INVALID_OPTION`; a replica's limit is named by its path (`replicas[1].maxConcurrency`).
 *
 * @example
 * checkPoolOptions({ replicas: [{ url: "http://10.0.0.1:8000", maxConcurrency: { min: 2, max: 16 } }] });
 */
export function checkPoolOptions(options: PoolOptions): void {
  resolveRetries(options);
  const replicas = resolveReplicas(options.replicas);
  resolveHealth(options.health);
  resolveSignals(options.signals);
  resolveShared(options.shared);
  resolveRouter(options.routing);
  resolveKeyOf(options.routingKey);
  resolveSchedulerLimit(options);
  for (const [index, { options: replica }] of replicas.entries()) {
    try {
      const limiter = createScheduler({
        maxConcurrency: replica.maxConcurrency,
        ...(replica.adaptive === undefined ? {} : { adaptive: replica.adaptive }),
      });
      void limiter.close();
    } catch (error) {
      if (isSchedulerError(error)) {
        error.message = error.message.replace(
          /`([^`]+)`/,
          (_m, path: string) => `\`replicas[${index}].${path}\``,
        );
      }
      throw error;
    }
  }
}
