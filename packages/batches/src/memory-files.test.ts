import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchError } from "./errors.js";
import { MemoryFiles } from "./memory-files.js";
import type { FileQuota, FileRecord } from "./store.js";

const QUOTA: FileQuota = { maxBytes: 100, maxFiles: 3 };

const record = (id: string, tenant: string, createdAt = 0, expiresAt = 1_000): FileRecord => ({
  id,
  tenant,
  purpose: "batch",
  filename: "in.jsonl",
  bytes: 0,
  lines: 0,
  createdAt,
  expiresAt,
});

describe("MemoryFiles", () => {
  it("gives back every line as given (any UTF-8), paged across the appended blocks", () => {
    const files = new MemoryFiles(2 ** 30);
    files.create(record("f", "t"), QUOTA);
    const given = ["a", "é and ü", "日本語", "😀 emoji", "", '\\u0000 "quoted"', "last"];
    files.append("f", given.slice(0, 3), 10, QUOTA);
    files.append("f", given.slice(3, 4), 20, QUOTA);
    files.append("f", given.slice(4), 30, QUOTA);
    expect(files.lines("f", 0, 100)).toEqual(given);
    expect(files.lines("f", 2, 3)).toEqual(given.slice(2, 5));
    expect(files.lines("f", 6, 10)).toEqual(["last"]);
    expect(files.lines("f", 7, 10)).toEqual([]);
    expect(files.get("f")).toMatchObject({ lines: 7, bytes: 30 });
  });

  it("property: whatever the order of creates, appends, deletes and purges, a tenant's usage is the sum of its files and never passes its quota", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("create" as const),
        tenant: fc.constantFrom("a", "b"),
        ttl: fc.integer({ min: 1, max: 50 }),
      }),
      fc.record({
        kind: fc.constant("append" as const),
        file: fc.nat(20),
        grow: fc.integer({ min: 0, max: 60 }),
      }),
      fc.record({ kind: fc.constant("delete" as const), file: fc.nat(20) }),
      fc.record({ kind: fc.constant("purge" as const), step: fc.integer({ min: 0, max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 80 }), (ops) => {
        const files = new MemoryFiles(150);
        const ids: string[] = [];
        let now = 0;
        const keptOf = (tenant?: string) =>
          ids
            .map((id) => files.get(id))
            .filter((file) => file !== undefined && file.expiresAt > now)
            .filter((file) => tenant === undefined || file!.tenant === tenant) as FileRecord[];
        const bytesOf = (kept: FileRecord[]) => kept.reduce((sum, file) => sum + file.bytes, 0);
        for (const step of ops) {
          // what a model of the quota expects, then whether the files agree
          let expected = true;
          let accepted = true;
          try {
            if (step.kind === "create") {
              expected = keptOf(step.tenant).length < QUOTA.maxFiles;
              const id = `f${ids.length}`;
              ids.push(id);
              files.create(record(id, step.tenant, now, now + step.ttl), QUOTA);
            } else if (step.kind === "append") {
              const id = ids[step.file % Math.max(1, ids.length)];
              const before = id === undefined ? undefined : files.get(id);
              if (id !== undefined && before !== undefined) {
                expected =
                  bytesOf(keptOf(before.tenant)) + step.grow <= QUOTA.maxBytes &&
                  bytesOf(keptOf()) + step.grow <= 150;
                files.append(id, ["x"], before.bytes + step.grow, QUOTA);
              }
            } else if (step.kind === "delete") {
              const id = ids[step.file % Math.max(1, ids.length)];
              if (id !== undefined) files.delete(id);
            } else {
              now += step.step;
              files.purge(now);
            }
          } catch (error) {
            if (!(error instanceof BatchError)) throw error;
            accepted = false;
          }
          // plain checks: a run makes thousands of them
          if (accepted !== expected)
            throw new Error(`${step.kind}: accepted ${accepted}, the model says ${expected}`);
          const kept = keptOf();
          for (const tenant of ["a", "b"]) {
            const mine = kept.filter((file) => file.tenant === tenant);
            if (mine.length > QUOTA.maxFiles || bytesOf(mine) > QUOTA.maxBytes)
              throw new Error(`${tenant} over`);
          }
          if (files.totalBytes !== bytesOf(kept))
            throw new Error(`total ${files.totalBytes} != ${bytesOf(kept)}`);
        }
        for (const id of ids) files.delete(id);
        expect(files.totalBytes).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
