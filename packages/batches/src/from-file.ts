import { paramOf, parseInputLine } from "./input-line.js";
import { pauser } from "./pause.js";
import type { BatchStore, FileRecord } from "./store.js";
import type { BatchItem, ItemError } from "./types.js";

const CHUNK = 500;
const GONE: ItemError = {
  code: "file_not_found",
  message: "The input file was deleted or expired while the batch was being created.",
};

/**
 * Reads a stored input file page by page, checks every line and adds the items to a `validating`
 * batch; answers how many there were, or the first invalid line as the batch's error (or
 * `file_not_found` when the file goes away meanwhile: a batch never starts with part of its input).
 *
 * @example
 * const read = await copyFileItems(store, file, batch.id, "/v1/chat/completions");
 */
export async function copyFileItems(
  store: BatchStore,
  file: FileRecord,
  batchId: string,
  endpoint: string | null,
): Promise<{ total: number } | { error: ItemError }> {
  const seen = new Map<string, number>();
  const pause = pauser();
  for (let from = 0; from < file.lines; from += CHUNK) {
    const lines = await store.fileLines(file.id, from, CHUNK);
    if (lines.length < Math.min(CHUNK, file.lines - from)) return { error: GONE }; // deleted or expired meanwhile
    const items: BatchItem[] = [];
    for (const [offset, line] of lines.entries()) {
      const index = from + offset;
      await pause();
      try {
        items.push({ ...parseInputLine(line, index + 1, seen, endpoint), index });
      } catch (error) {
        const number = index + 1;
        const { message } = error as Error;
        return { error: { code: "invalid_request", message, param: paramOf(error, number), line: number } };
      }
    }
    await store.addItems(batchId, items);
  }
  if (seen.size === 0) return { error: { code: "empty_file", message: "The input file has no requests." } };
  return { total: seen.size };
}
