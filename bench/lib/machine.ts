import { cpus, freemem, platform, release, totalmem } from "node:os";

/** Where a result was measured; printed with every result, because absolute figures move between machines. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly freeGb: number;
  readonly os: string;
  readonly node: string;
  readonly v8: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    freeGb: Math.round(freemem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    v8: process.versions.v8,
  };
}

export function describeMachine(info: Machine = machine()): string {
  return `${info.cores} cores (${info.cpu}), ${info.memoryGb} GB RAM (${info.freeGb} GB free), ${info.os}, Node ${info.node} (V8 ${info.v8})`;
}
