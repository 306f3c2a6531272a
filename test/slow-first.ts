import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Integration files that take the longest, longest first (paths under test/). A CI machine runs on a
 * clean clone, without the timings of an earlier run that vitest would otherwise sort by, and in glob
 * order a long file that starts last keeps one worker busy while the other has nothing left to do.
 */
const SLOW_FILES = [
  "demo/demo-cli.test.ts",
  "docs/readme-snippets.test.ts",
  "packaging/install.test.ts",
  "demo/examples.test.ts",
  "redis/preemption.property.test.ts",
  "adapters/preemption-races.test.ts",
  "demo/examples-access.test.ts",
  "demo/agreement.test.ts",
  "dashboard/browser.test.ts",
  "cloudflare/global-limit.test.ts",
  "redis/example.test.ts",
  "workers/workers.test.ts",
  "batches/multi-process.test.ts",
  "gateway/cli.test.ts",
];

/** Where a file goes: the slow integration files in the order above, the other integration files, then the unit files. */
function rank(spec: TestSpecification): number {
  if (spec.project.name !== "integration") return SLOW_FILES.length + 1;
  const slow = SLOW_FILES.findIndex((file) => spec.moduleId.endsWith(`/test/${file}`));
  return slow === -1 ? SLOW_FILES.length : slow;
}

/**
 * The long integration files first and the many short unit files last, where they fill the gaps two
 * workers leave at the end; within each of those, vitest's own order (files of one project together,
 * failed and then longest first by the last run's timings when it has them).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { sequence: { sequencer: SlowFirstSequencer } } });
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, index) => ({ spec, index, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
