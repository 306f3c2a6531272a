/**
 * `@llm-scheduler/core/kit`: helpers for authors of adapters and stores, kept out of the main entry so
 * that it stays the documented API for users.
 */
export { invalidOption, nearest, rejectUnknownKeys } from "./validate.js";
