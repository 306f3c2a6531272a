import { MemoryStore } from "@llm-scheduler/core";
import { runStoreContract } from "./contract.js";

runStoreContract({ name: "memory", create: () => new MemoryStore() });
