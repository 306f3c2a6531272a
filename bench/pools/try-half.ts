import { runPool, slowShare } from "./measure.js";
import { halfSpeedScenario } from "./scenarios.js";
const quick = process.argv.includes("--quick");
const started = performance.now();
const r = await runPool("prefix", halfSpeedScenario("prefix", quick));
console.log("share", slowShare(r).toFixed(3), "ttft", r.ttftMeanMs.toFixed(0), "hit", r.prefixHitRate.toFixed(3), ((performance.now()-started)/1000).toFixed(1), "s");
