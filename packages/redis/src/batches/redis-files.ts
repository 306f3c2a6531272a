import type { FileRecord } from "@llm-scheduler/batches";
import type { BatchKeys } from "./keys.js";
import type { BatchRedisClient } from "./options.js";

/**
 * Input files in Redis: the record in `file:<id>` (HASH, field `meta`) and the lines in `lines:<id>`
 * (LIST), both expiring after `ttlMs`.
 *
 * @example
 * const files = new RedisFiles(client, batchKeys("llm:"), 86_400_000);
 */
export class RedisFiles {
  readonly #client: BatchRedisClient;
  readonly #keys: BatchKeys;
  readonly #ttlMs: number;

  constructor(client: BatchRedisClient, keys: BatchKeys, ttlMs: number) {
    this.#client = client;
    this.#keys = keys;
    this.#ttlMs = ttlMs;
  }

  async create(file: FileRecord): Promise<void> {
    await this.#client
      .multi()
      .hset(this.#keys.file(file.id), "meta", JSON.stringify(file))
      .pexpire(this.#keys.file(file.id), this.#ttlMs)
      .exec();
  }

  async append(fileId: string, lines: readonly string[], bytes: number): Promise<void> {
    const record = await this.get(fileId);
    if (record === undefined) return;
    const multi = this.#client.multi();
    if (lines.length > 0) multi.rpush(this.#keys.lines(fileId), ...lines);
    multi.pexpire(this.#keys.lines(fileId), this.#ttlMs);
    multi.hset(
      this.#keys.file(fileId),
      "meta",
      JSON.stringify({ ...record, bytes, lines: record.lines + lines.length }),
    );
    await multi.exec();
  }

  async get(fileId: string): Promise<FileRecord | undefined> {
    const meta = await this.#client.hget(this.#keys.file(fileId), "meta");
    return meta === null ? undefined : (JSON.parse(meta) as FileRecord);
  }

  lines(fileId: string, from: number, limit: number): Promise<string[]> {
    return this.#client.lrange(this.#keys.lines(fileId), from, from + limit - 1);
  }

  async delete(fileId: string): Promise<boolean> {
    return (await this.#client.del(this.#keys.file(fileId), this.#keys.lines(fileId))) > 0;
  }
}
