import { type HeapItem, IndexedHeap } from "@llm-scheduler/core/kit";
import { fileStorageFull, filesQuotaExceeded } from "./errors.js";
import type { FileQuota, FileRecord } from "./store.js";

/** One appended run of lines, kept as a single block of UTF-8 bytes and the end offset of each line. */
interface Block {
  /** The file's line number (0-based) of the block's first line. */
  readonly first: number;
  readonly bytes: Uint8Array;
  readonly ends: Float64Array;
}

interface StoredFile extends HeapItem {
  record: FileRecord;
  readonly blocks: Block[];
}

/** What one tenant keeps: files and bytes reserved. */
interface Usage {
  files: number;
  bytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes lines into one block: a line costs its UTF-8 bytes and one offset, not a string each. */
function blockOf(lines: readonly string[], first: number): Block {
  let most = 0;
  for (const line of lines) most += line.length * 3; // UTF-8 never needs more than 3 bytes per UTF-16 unit
  const scratch = new Uint8Array(most);
  const ends = new Float64Array(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    at += encoder.encodeInto(lines[i]!, scratch.subarray(at)).written;
    ends[i] = at;
  }
  return { first, bytes: scratch.slice(0, at), ends };
}

/**
 * Input files of the in-memory store: the validated lines of each upload as blocks of UTF-8 bytes,
 * with the files and bytes each tenant keeps, checked against its {@link FileQuota} and a cap on all
 * tenants together. Expired files are deleted by {@link MemoryFiles.purge} from a heap ordered by
 * expiry (no timer per file, no scan).
 *
 * @example
 * const files = new MemoryFiles(1_073_741_824);
 * files.create(record, { maxBytes: 2 ** 30, maxFiles: 1_000 });
 * files.append(record.id, ['{"custom_id":"a",...}'], 42, { maxBytes: 2 ** 30, maxFiles: 1_000 });
 */
export class MemoryFiles {
  readonly #files = new Map<string, StoredFile>();
  readonly #usage = new Map<string, Usage>();
  readonly #maxTotalBytes: number;
  #totalBytes = 0;
  /** Every stored file, the one that expires first on top. */
  readonly #byExpiry = new IndexedHeap<StoredFile>((a, b) => a.record.expiresAt < b.record.expiresAt);

  constructor(maxTotalBytes: number) {
    this.#maxTotalBytes = maxTotalBytes;
  }

  /** Bytes of files kept, all tenants together. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  create(record: FileRecord, quota: FileQuota): void {
    this.purge(record.createdAt);
    const usage = this.#usage.get(record.tenant) ?? { files: 0, bytes: 0 };
    if (usage.files >= quota.maxFiles) throw filesQuotaExceeded("files", quota.maxFiles);
    this.#reserve(usage, record.bytes, quota);
    usage.files++;
    this.#usage.set(record.tenant, usage);
    const file: StoredFile = { record: { ...record, lines: 0 }, blocks: [], heapIndex: -1 };
    this.#files.set(record.id, file);
    this.#byExpiry.push(file);
  }

  append(fileId: string, lines: readonly string[], bytes: number, quota: FileQuota): void {
    const file = this.#files.get(fileId);
    if (file === undefined) return;
    this.#reserve(this.#usage.get(file.record.tenant)!, bytes - file.record.bytes, quota);
    if (lines.length > 0) file.blocks.push(blockOf(lines, file.record.lines));
    file.record = { ...file.record, bytes, lines: file.record.lines + lines.length };
  }

  /** Adds `growth` bytes to a tenant's usage and the total, or throws (changing nothing) when over. */
  #reserve(usage: Usage, growth: number, quota: FileQuota): void {
    if (growth > 0 && usage.bytes + growth > quota.maxBytes)
      throw filesQuotaExceeded("bytes", quota.maxBytes);
    if (growth > 0 && this.#totalBytes + growth > this.#maxTotalBytes) {
      throw fileStorageFull(this.#maxTotalBytes);
    }
    usage.bytes += growth;
    this.#totalBytes += growth;
  }

  setExpiry(fileId: string, expiresAt: number): void {
    const file = this.#files.get(fileId);
    if (file === undefined) return;
    this.#byExpiry.remove(file);
    file.record = { ...file.record, expiresAt };
    this.#byExpiry.push(file);
  }

  get(fileId: string): FileRecord | undefined {
    return this.#files.get(fileId)?.record;
  }

  lines(fileId: string, from: number, limit: number): string[] {
    const found: string[] = [];
    for (const block of this.#files.get(fileId)?.blocks ?? []) {
      const { first, bytes, ends } = block;
      for (let i = Math.max(0, from - first); i < ends.length && found.length < limit; i++) {
        found.push(decoder.decode(bytes.subarray(i === 0 ? 0 : ends[i - 1], ends[i])));
      }
      if (found.length >= limit) break;
    }
    return found;
  }

  /** Deletes a file and gives its place and bytes back to its tenant. */
  delete(fileId: string): boolean {
    const file = this.#files.get(fileId);
    if (file === undefined) return false;
    this.#files.delete(fileId);
    this.#byExpiry.remove(file);
    const { tenant, bytes } = file.record;
    const usage = this.#usage.get(tenant)!;
    usage.files--;
    usage.bytes -= bytes;
    this.#totalBytes -= bytes;
    if (usage.files === 0) this.#usage.delete(tenant);
    return true;
  }

  /** Deletes every file expired by `now`; answers how many. */
  purge(now: number): number {
    let deleted = 0;
    for (let first = this.#byExpiry.peek(); first !== undefined && first.record.expiresAt <= now; ) {
      this.delete(first.record.id);
      deleted++;
      first = this.#byExpiry.peek();
    }
    return deleted;
  }
}
