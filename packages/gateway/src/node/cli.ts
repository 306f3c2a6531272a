#!/usr/bin/env node
import { runGatewayCli } from "./run-cli.js";

await runGatewayCli(process.argv.slice(2));
