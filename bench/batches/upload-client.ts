// Uploads a generated JSONL file of `<megabytes>` MB to `<url>/v1/files` from its own process (so that the
// measured server process holds none of the client's buffers) and prints the answer.
// Usage: upload-client.ts <url> <megabytes>
import { bigUpload } from "../../test/batches/big-file.js";

const [url, megabytes] = process.argv.slice(2);
const upload = bigUpload(Number(megabytes));
const answer = await fetch(`${url}/v1/files`, {
  method: "POST",
  body: upload.body,
  headers: { "content-type": upload.contentType },
  duplex: "half",
} as RequestInit);
console.log(await answer.text());
