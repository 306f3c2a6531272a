import type { ServedBatches } from "@llm-scheduler/batches";

const BOUNDARY = "----batches-parse-cost";
const CHUNK = 65_536;
const encoder = new TextEncoder();

/** A JSONL file of about `bytes` bytes in lines of about `lineBytes` bytes each, encoded once. */
export function jsonlOf(bytes: number, lineBytes: number): Uint8Array {
  const count = Math.max(1, Math.round(bytes / lineBytes));
  const lineOf = (n: number, content: string) =>
    `${JSON.stringify({ custom_id: `r-${n}`, method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content }] } })}\n`;
  const filler = "x".repeat(Math.max(1, Math.floor(bytes / count) - lineOf(count, "").length));
  const parts: string[] = [];
  for (let n = 0; n < count; n++) parts.push(lineOf(n, filler));
  return encoder.encode(parts.join(""));
}

/** The multipart body of an upload of `file`, as a stream of 64 KB chunks. */
export function uploadBody(file: Uint8Array): { body: ReadableStream<Uint8Array>; contentType: string } {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const chunks: Uint8Array[] = [head];
  for (let at = 0; at < file.length; at += CHUNK) chunks.push(file.subarray(at, at + CHUNK));
  chunks.push(tail);
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

/** CPU milliseconds (user + system) that uploading `file` through `batches.fetch` costs; it must succeed. */
export async function uploadCpuMs(batches: ServedBatches, file: Uint8Array): Promise<number> {
  const { body, contentType } = uploadBody(file);
  const request = new Request("http://gateway.test/v1/files", {
    method: "POST",
    body,
    headers: { "content-type": contentType },
    duplex: "half",
  } as RequestInit);
  const before = process.cpuUsage();
  const answer = await batches.fetch(request);
  const used = process.cpuUsage(before);
  if (answer.status !== 200) throw new Error(`upload failed: ${(await answer.text()).slice(0, 300)}`);
  const { id } = (await answer.json()) as { id: string };
  await batches.store.deleteFile(id);
  return (used.user + used.system) / 1_000;
}
