import { VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { ticket } from "../test/fixtures.js";
import { Grants } from "./grants.js";
import { resolveRedisOptions } from "./options.js";
import type { Remote } from "./remote.js";
import type { Reply } from "./replies.js";
import { StoreState } from "./state.js";

const granting = (...granted: string[]): Reply => ({
  status: 0,
  counts: { running: granted.length, queued: 0, priorities: {}, starts: {} },
  granted,
  extra: [],
});

/** Grant delivery for this instance ("me"), with tickets 1 and 2 waiting. */
function setUp() {
  const remote = { seqOf: (id: string) => (id.startsWith("me:") ? Number(id.slice(3)) : undefined) };
  const state = new StoreState(resolveRedisOptions({}), remote as unknown as Remote);
  const started: number[] = [];
  state.host = {
    clock: new VirtualClock(),
    grant: (t) => started.push(t.seq),
    fail: () => {},
    revoke: () => {},
  };
  state.up = true;
  const handedBack: string[][] = [];
  const grants = new Grants(
    state,
    (ids) => handedBack.push([...ids]),
    () => {},
  );
  const entries = [1, 2].map((seq) => state.ledger.add(ticket(seq)));
  return { grants, state, started, handedBack, entries };
}

describe("Grants", () => {
  it("start each task once, however many ways its grant arrives", () => {
    const { grants, started, entries } = setUp();
    grants.heard("me:1");
    grants.absorb(granting("me:1", "me:2"));
    grants.absorbDrained(granting("me:1", "me:2"));
    expect(started).toEqual([1, 2]);
    expect(entries.every((entry) => entry.state === "granted")).toBe(true);
  });

  it("hand back grants nobody here waits for, and ignore other instances' ids", () => {
    const { grants, handedBack, started } = setUp();
    grants.absorb(granting("me:9", "other:1"));
    grants.heard("me:8,other:2");
    expect(handedBack).toEqual([["me:9"], ["me:8"]]);
    expect(started).toEqual([]);
  });

  it("do not hand back a heard grant again when the inbox repeats it", () => {
    const { grants, state, handedBack, entries } = setUp();
    grants.heard("me:1");
    state.ledger.delete(entries[0]!); // released meanwhile: the release gave the slot back
    grants.absorbDrained(granting("me:1"));
    expect(handedBack).toEqual([]);
  });

  it("keep a grant heard while Redis is down for the lease to lapse, rather than call Redis", () => {
    const { grants, state, handedBack } = setUp();
    state.up = false;
    grants.heard("me:7");
    expect(handedBack).toEqual([]);
  });

  it("take in the counts of every reply", () => {
    const { grants, state } = setUp();
    grants.absorb(granting("me:1"));
    expect(state.counts.running).toBe(1);
  });
});
