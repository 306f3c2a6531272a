import { MemoryStore } from "@llm-scheduler/core/kit";
import { runStoreContract } from "./contract.js";

runStoreContract({ name: "memory", create: () => new MemoryStore() });
