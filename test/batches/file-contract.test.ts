import {
  BatchError,
  type BatchStore,
  type FileQuota,
  type FileRecord,
  MemoryBatchStore,
  newId,
} from "@llm-scheduler/batches";
import { RedisBatchStore } from "@llm-scheduler/redis";
import { afterAll, describe, expect, it } from "vitest";
import { useRedisServer } from "../redis/helpers.js";

// Input files' time to live and per-tenant quotas, held to the same rules in memory and in Redis.
const redis = useRedisServer();
const opened: RedisBatchStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
});

/** `n` handles on one store: the same object in memory, `n` connections on one prefix in Redis. */
type Make = (n: number) => BatchStore[];
const stores: ReadonlyArray<readonly [string, Make]> = [
  [
    "memory",
    (n) => {
      const store = new MemoryBatchStore();
      return Array.from({ length: n }, () => store);
    },
  ],
  [
    "redis",
    (n) => {
      const prefix = `files-${newId("p")}:`;
      return Array.from({ length: n }, () => {
        const store = new RedisBatchStore({ url: redis.server.url, prefix });
        opened.push(store);
        return store;
      });
    },
  ],
];

const T0 = 1_000_000;
const QUOTA: FileQuota = { maxBytes: 1_000, maxFiles: 3 };

function record(tenant = "t", createdAt = T0, ttlMs = 60_000): FileRecord {
  return {
    id: newId("file"),
    tenant,
    purpose: "batch",
    filename: "in.jsonl",
    bytes: 0,
    lines: 0,
    createdAt,
    expiresAt: createdAt + ttlMs,
  };
}

/** The `BatchError` code a call fails with, or "ok". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    if (error instanceof BatchError) return error.code;
    throw error;
  }
}

describe.each(stores)("input files contract: %s", (_name, make) => {
  it("shows a file's expiry, keeps it until then, and a sweep deletes it and gives its place back", async () => {
    const [store] = make(1) as [BatchStore];
    const one = { ...QUOTA, maxFiles: 1 };
    const file = record("t", T0, 1_000);
    await store.createFile(file, one);
    await store.appendFileLines(file.id, ["a", "b"], 4, one);
    expect(await store.getFile(file.id)).toMatchObject({ expiresAt: T0 + 1_000, bytes: 4, lines: 2 });
    await store.sweep(T0 + 999);
    expect(await store.fileLines(file.id, 0, 10)).toEqual(["a", "b"]);
    expect(await outcome(store.createFile(record("t", T0 + 999), one))).toBe("FILES_QUOTA_EXCEEDED");
    await store.sweep(T0 + 1_000);
    expect(await store.getFile(file.id)).toBeUndefined();
    expect(await store.fileLines(file.id, 0, 10)).toEqual([]);
    expect(await store.deleteFile(file.id)).toBe(false);
    expect(await outcome(store.createFile(record("t", T0 + 1_000), one))).toBe("ok");
  });

  it("an upload deletes the expired files before it counts (no sweep needed)", async () => {
    const [store] = make(1) as [BatchStore];
    const one = { ...QUOTA, maxFiles: 1 };
    const old = record("t", T0, 1_000);
    await store.createFile(old, one);
    await store.appendFileLines(old.id, ["x"], 1_000, one);
    const next = record("t", T0 + 1_000);
    expect(await outcome(store.createFile(next, one))).toBe("ok");
    expect(await store.getFile(old.id)).toBeUndefined();
    expect(await outcome(store.appendFileLines(next.id, ["y"], 1_000, one))).toBe("ok"); // its bytes came back
  });

  it("moves an expiry", async () => {
    const [store] = make(1) as [BatchStore];
    const file = record("t", T0, 60_000);
    await store.createFile(file, QUOTA);
    await store.setFileExpiry(file.id, T0 + 3_600);
    expect((await store.getFile(file.id))?.expiresAt).toBe(T0 + 3_600);
    await store.sweep(T0 + 3_600);
    expect(await store.getFile(file.id)).toBeUndefined();
    await store.setFileExpiry(file.id, T0 + 9_999); // gone: nothing comes back
    expect(await store.getFile(file.id)).toBeUndefined();
  });

  it("caps the files of a tenant, not of the others; a delete gives the place back once", async () => {
    const [store] = make(1) as [BatchStore];
    const files = [record(), record(), record()];
    for (const file of files) await store.createFile(file, QUOTA);
    expect(await outcome(store.createFile(record(), QUOTA))).toBe("FILES_QUOTA_EXCEEDED");
    expect(await outcome(store.createFile(record("other"), QUOTA))).toBe("ok");
    expect(await store.deleteFile(files[0]!.id)).toBe(true);
    expect(await store.deleteFile(files[0]!.id)).toBe(false); // a second delete gives nothing back
    expect(await outcome(store.createFile(record(), QUOTA))).toBe("ok");
    expect(await outcome(store.createFile(record(), QUOTA))).toBe("FILES_QUOTA_EXCEEDED");
  });

  it("caps the bytes of a tenant: the append past it stores nothing; a delete gives the bytes back", async () => {
    const [store] = make(1) as [BatchStore];
    const first = record();
    await store.createFile(first, QUOTA);
    await store.appendFileLines(first.id, ["a"], 600, QUOTA);
    const second = record();
    await store.createFile(second, QUOTA);
    await store.appendFileLines(second.id, ["b"], 300, QUOTA);
    expect(await outcome(store.appendFileLines(second.id, ["c"], 401, QUOTA))).toBe("FILES_QUOTA_EXCEEDED");
    expect(await store.getFile(second.id)).toMatchObject({ bytes: 300, lines: 1 });
    expect(await store.fileLines(second.id, 0, 10)).toEqual(["b"]);
    await store.appendFileLines(second.id, ["c"], 400, QUOTA); // exactly at the cap
    expect(await outcome(store.appendFileLines(second.id, [], 401, QUOTA))).toBe("FILES_QUOTA_EXCEEDED");
    await store.deleteFile(first.id);
    await store.appendFileLines(second.id, ["d"], 1_000, QUOTA);
    expect(await store.fileLines(second.id, 0, 10)).toEqual(["b", "c", "d"]);
  });

  it("concurrent uploads racing the caps: exactly the quota gets in, and every byte comes back", async () => {
    const handles = make(4);
    const quota = { maxBytes: 1_000, maxFiles: 5 };
    const creates = Array.from({ length: 24 }, (_, i) => {
      const file = record("race");
      return handles[i % handles.length]!.createFile(file, quota).then(
        () => file.id,
        (error: unknown) => (error instanceof BatchError ? error.code : Promise.reject(error)),
      );
    });
    const created = (await Promise.all(creates)).filter((id) => id.startsWith("file"));
    expect(created).toHaveLength(5);
    const appends = created.flatMap((id, i) =>
      [1, 2].map((part) =>
        outcome(handles[(i + part) % handles.length]!.appendFileLines(id, [`${part}`], part * 150, quota)),
      ),
    );
    const results = await Promise.all(appends);
    // each file grows to 300 bytes in two steps of 150: 1,000 bytes take 6 steps, whatever their order
    expect(results.filter((r) => r === "ok")).toHaveLength(6);
    expect(results.filter((r) => r === "FILES_QUOTA_EXCEEDED")).toHaveLength(4);
    await Promise.all(created.map((id, i) => handles[i % handles.length]!.deleteFile(id)));
    await Promise.all(created.map((id) => handles[0]!.deleteFile(id)));
    const [store] = handles as [BatchStore];
    const whole = record("race");
    await store.createFile(whole, quota);
    expect(await outcome(store.appendFileLines(whole.id, ["all"], 1_000, quota))).toBe("ok");
    for (let i = 0; i < 4; i++) await store.createFile(record("race"), quota);
    expect(await outcome(store.createFile(record("race"), quota))).toBe("FILES_QUOTA_EXCEEDED");
  });
});
