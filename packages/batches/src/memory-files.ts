import type { FileRecord } from "./store.js";

interface StoredFile {
  record: FileRecord;
  readonly lines: string[];
}

/**
 * Input files of the in-memory store: the validated lines of each upload, in order.
 *
 * @example
 * const files = new MemoryFiles();
 * await files.create(record);
 * await files.append(record.id, ['{"custom_id":"a",...}'], 42);
 */
export class MemoryFiles {
  readonly #files = new Map<string, StoredFile>();

  async create(record: FileRecord): Promise<void> {
    this.#files.set(record.id, { record, lines: [] });
  }

  async append(fileId: string, lines: readonly string[], bytes: number): Promise<void> {
    const file = this.#files.get(fileId);
    if (file === undefined) return;
    file.lines.push(...lines);
    file.record = { ...file.record, bytes, lines: file.lines.length };
  }

  async get(fileId: string): Promise<FileRecord | undefined> {
    return this.#files.get(fileId)?.record;
  }

  async lines(fileId: string, from: number, limit: number): Promise<string[]> {
    return this.#files.get(fileId)?.lines.slice(from, from + limit) ?? [];
  }

  async delete(fileId: string): Promise<boolean> {
    return this.#files.delete(fileId);
  }
}
