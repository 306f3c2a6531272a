import { MemoryStore } from "@llm-scheduler/core/kit";
import { runStoreContract } from "./contract.js";
import { runQuotaContract } from "./quota-contract.js";

const memory = { name: "memory", create: () => new MemoryStore() };
runStoreContract(memory);
runQuotaContract(memory);
