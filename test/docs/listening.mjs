// Loaded with `--import` into the process of a README server snippet: says on stderr when a TCP server
// starts listening, so the test knows the snippet got that far, whatever the machine's speed.
import { Server } from "node:net";

const listen = Server.prototype.listen;
Server.prototype.listen = function listenAndSay(...args) {
  this.once("listening", () => {
    const address = this.address();
    if (address !== null && typeof address === "object") {
      process.stderr.write(`snippet listening on port ${address.port}\n`);
    }
  });
  return listen.apply(this, args);
};
