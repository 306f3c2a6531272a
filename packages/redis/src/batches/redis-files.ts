import { type FileQuota, type FileRecord, filesQuotaExceeded } from "@llm-scheduler/batches";
import type { BatchKeys } from "./keys.js";
import type { BatchRedisClient } from "./options.js";
import type { BatchScripts } from "./scripts.js";

/** Most lines sent in one `file-append` call (its arguments). */
const LINES_PER_CALL = 10_000;

/**
 * Input files in Redis: the record in `file:<id>` (HASH) and the lines in `lines:<id>` (LIST), both
 * expiring with the file; each tenant's files and bytes are counted and checked against its quota in
 * the same script as the write (see keys.ts), so concurrent uploads from any instance cannot pass it.
 *
 * @example
 * const files = new RedisFiles(client, scripts, batchKeys("llm:"), prefix, 2_592_000_000);
 */
export class RedisFiles {
  readonly #client: BatchRedisClient;
  readonly #scripts: BatchScripts;
  readonly #keys: BatchKeys;
  readonly #prefix: string;
  readonly #ttlMs: number;

  constructor(
    client: BatchRedisClient,
    scripts: BatchScripts,
    keys: BatchKeys,
    prefix: string,
    ttlMs: number,
  ) {
    this.#client = client;
    this.#scripts = scripts;
    this.#keys = keys;
    this.#prefix = prefix;
    this.#ttlMs = ttlMs;
  }

  async create(file: FileRecord, quota: FileQuota): Promise<void> {
    const expiresAt = Math.min(file.expiresAt, file.createdAt + this.#ttlMs);
    const reply = await this.#scripts.run("file-create", [
      this.#prefix,
      file.id,
      file.tenant,
      JSON.stringify({ ...file, expiresAt }),
      file.createdAt,
      expiresAt,
      quota.maxFiles,
    ]);
    if (reply === "files") throw filesQuotaExceeded("files", quota.maxFiles);
  }

  async append(fileId: string, lines: readonly string[], bytes: number, quota: FileQuota): Promise<void> {
    for (let from = 0; from === 0 || from < lines.length; from += LINES_PER_CALL) {
      const part = lines.slice(from, from + LINES_PER_CALL);
      // the first part reserves the whole growth; the next ones find nothing more to reserve
      const reply = await this.#scripts.run("file-append", [
        this.#prefix,
        fileId,
        bytes,
        quota.maxBytes,
        ...part,
      ]);
      if (reply === "bytes") throw filesQuotaExceeded("bytes", quota.maxBytes);
      if (reply === "gone") return;
    }
  }

  async setExpiry(fileId: string, expiresAt: number): Promise<void> {
    const record = await this.get(fileId);
    if (record === undefined) return;
    const capped = Math.min(expiresAt, record.createdAt + this.#ttlMs);
    await this.#scripts.run("file-expiry", [this.#prefix, fileId, capped]);
  }

  async get(fileId: string): Promise<FileRecord | undefined> {
    const fields = await this.#client.hgetall(this.#keys.file(fileId));
    if (fields.meta === undefined) return undefined;
    const record = JSON.parse(fields.meta) as FileRecord;
    const number = (value: string | undefined, fallback: number) =>
      value === undefined ? fallback : Number(value);
    return {
      ...record,
      bytes: number(fields.bytes, record.bytes),
      lines: number(fields.lines, record.lines),
      expiresAt: number(fields.expiresAt, record.expiresAt ?? record.createdAt + this.#ttlMs),
    };
  }

  lines(fileId: string, from: number, limit: number): Promise<string[]> {
    return this.#client.lrange(this.#keys.lines(fileId), from, from + limit - 1);
  }

  async delete(fileId: string): Promise<boolean> {
    return (await this.#scripts.run("file-delete", [this.#prefix, fileId])) === 1;
  }
}
