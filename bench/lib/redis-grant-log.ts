// When Redis itself admitted and granted each ticket of a fleet run, read through MONITOR: the store's
// fairness without the instances' own delays (a process short of CPU sends its tickets late and sees
// its grants late; neither is the store's doing). MONITOR streams every command to this client and
// slows Redis down, so this is a check to run on its own (bench/tools/fleet-redis-side.ts), never
// inside a measured run.
import { Redis } from "ioredis";
import type { InstanceTickets } from "./fleet-shares.js";

/** Stops watching and hands back each instance's tickets, µs from the first one admitted. */
export type StopWatching = () => Promise<{
  readonly instances: string[];
  readonly tickets: InstanceTickets[];
}>;

/**
 * Watches the store's Lua under `prefix`: a ticket is admitted when its record is written
 * (`HSETNX <prefix>tickets <id>`) and granted when its lease is first written (`ZADD <prefix>leases`);
 * ids are `<instance>:<seq>`; a ticket's class is its tenant's number (`t<n>`, as the fleet probe names them).
 */
export async function watchGrants(url: string, prefix: string): Promise<StopWatching> {
  const client = new Redis(url);
  const monitor = await client.monitor();
  const asked = new Map<string, number>();
  const classes = new Map<string, number>();
  const granted = new Map<string, number>();
  const ticketsKey = `${prefix}tickets`;
  const leasesKey = `${prefix}leases`;
  monitor.on("monitor", (time: string, args: string[]) => {
    const command = args[0]?.toUpperCase();
    const at = Math.round(Number(time) * 1e6);
    if (command === "HSETNX" && args[1] === ticketsKey && !asked.has(args[2]!)) {
      asked.set(args[2]!, at);
      // the record ends with the tenant, `t<class>` in the fleet probe
      classes.set(args[2]!, Number(/t(\d+)$/.exec(args[3] ?? "")?.[1] ?? 0));
    } else if (command === "ZADD" && args[1] === leasesKey) {
      for (let i = 3; i < args.length; i += 2) {
        if (asked.has(args[i]!) && !granted.has(args[i]!)) granted.set(args[i]!, at);
      }
    }
  });
  return async () => {
    monitor.disconnect();
    client.disconnect();
    const first = Math.min(...asked.values());
    const byInstance = new Map<string, { asked: number[]; granted: number[]; classes: number[] }>();
    for (const [id, at] of asked) {
      const instance = id.slice(0, id.lastIndexOf(":"));
      let tickets = byInstance.get(instance);
      if (tickets === undefined) {
        tickets = { asked: [], granted: [], classes: [] };
        byInstance.set(instance, tickets);
      }
      tickets.asked.push(at - first);
      tickets.classes.push(classes.get(id) ?? 0);
      const grant = granted.get(id);
      tickets.granted.push(grant === undefined ? -1 : grant - first);
    }
    return { instances: [...byInstance.keys()], tickets: [...byInstance.values()] };
  };
}
