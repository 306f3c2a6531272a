// Counts the objects on the heap by kind, from a V8 heap snapshot: what each queued task leaves behind.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { collectGarbage } from "./timing.js";

/** Count and total self size of the heap objects of one kind (V8 node type and name). */
export type Census = Map<string, { count: number; bytes: number }>;

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Writing the snapshot to a file and reading it back is faster than V8's snapshot stream. */
function readSnapshot(): RawSnapshot {
  const dir = mkdtempSync(join(tmpdir(), "llm-scheduler-census-"));
  try {
    return JSON.parse(readFileSync(writeHeapSnapshot(join(dir, "heap.heapsnapshot")), "utf8")) as RawSnapshot;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Takes a snapshot after a full gc and tallies it; the snapshot itself is dropped before returning. */
export function takeCensus(): Census {
  collectGarbage(2);
  const { snapshot, nodes, strings } = readSnapshot();
  const fields = snapshot.meta.node_fields;
  const stride = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const types = snapshot.meta.node_types[0];
  const census: Census = new Map();
  for (let offset = 0; offset < nodes.length; offset += stride) {
    const type = types[nodes[offset + typeAt]!]!;
    // Strings are named by their content; group them by type only.
    const name = type.includes("string") ? "" : strings[nodes[offset + nameAt]!]!.slice(0, 60);
    const key = `${type}:${name}`;
    const entry = census.get(key);
    const bytes = nodes[offset + sizeAt]!;
    if (entry === undefined) census.set(key, { count: 1, bytes });
    else {
      entry.count++;
      entry.bytes += bytes;
    }
  }
  return census;
}

/** One kind of object that grew with the number of queued tasks. */
export interface CensusRow {
  readonly kind: string;
  readonly perTask: number;
  readonly bytesPerTask: number;
}

/** Kinds whose count grew by at least a tenth of a per task between two censuses, largest first. */
export function censusDiff(before: Census, after: Census, tasks: number): CensusRow[] {
  const rows: CensusRow[] = [];
  for (const [kind, { count, bytes }] of after) {
    const base = before.get(kind) ?? { count: 0, bytes: 0 };
    const perTask = (count - base.count) / tasks;
    if (perTask >= 0.1) rows.push({ kind, perTask, bytesPerTask: (bytes - base.bytes) / tasks });
  }
  return rows.sort((a, b) => b.bytesPerTask - a.bytesPerTask);
}
