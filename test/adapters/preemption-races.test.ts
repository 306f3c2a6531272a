import { describe, expect, it } from "vitest";
import {
  type StartGateway,
  startExpressGateway,
  startExpressScheduledGateway,
  startHonoGateway,
  startHonoScheduledGateway,
  startKoaGateway,
} from "./gateways.js";
import { runPreemptionRaces } from "./preemption-races.js";
import { startManualKoaGateway, startPipingExpressGateway } from "./race-gateways.js";

// 1,000 a gateway: PREEMPTION_RACES=1000 pnpm vitest run test/adapters/preemption-races.test.ts
const RACES = Number(process.env.PREEMPTION_RACES ?? 150);

const gateways: ReadonlyArray<readonly [string, StartGateway]> = [
  ["express middleware, status and flushHeaders() at the upstream's headers", startExpressGateway],
  ["express middleware, writeHead() then pipe()", startPipingExpressGateway],
  ["express scheduled(app)", startExpressScheduledGateway],
  ["koa middleware, the upstream's body as ctx.body", startKoaGateway],
  ["koa middleware, writeHead() and writes on ctx.res", startManualKoaGateway],
  ["hono middleware on @hono/node-server", startHonoGateway],
  ["hono scheduled(app) on @hono/node-server", startHonoScheduledGateway],
];

describe.each(gateways)("preemption races through the %s gateway", (_name, startGateway) => {
  it(`answers every preempted stream 503 before any byte, and streams every other one whole (${RACES} races)`, {
    timeout: 120_000,
  }, async () => {
    const tally = await runPreemptionRaces(startGateway, { races: RACES, seed: 27 });
    console.log(`preemption races, ${_name}: ${JSON.stringify(tally)}`);
    expect(tally).toMatchObject({ broken: 0, chatFailed: 0 });
    expect(tally.answered503).toBe(tally.preempted);
    expect(tally.answered503 + tally.full).toBe(RACES);
    // The random moments cover both sides of the first byte.
    expect(tally.preempted).toBeGreaterThan(RACES / 10);
    expect(tally.full).toBeGreaterThan(RACES / 10);
  });
});
