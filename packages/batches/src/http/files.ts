import type { Batches } from "../batches.js";
import { MAX_ITEMS } from "../create-options.js";
import { BatchError, batchErrorHttp } from "../errors.js";
import { EXPIRES_AFTER, type ExpiresAfter, expiresAtOf } from "../file-expiry.js";
import { parseInputLine } from "../input-line.js";
import { sameTenant } from "../same-tenant.js";
import type { FileQuota, FileRecord } from "../store.js";
import { declaredAbove, limitedStream } from "./body.js";
import { fileObject, resultLine } from "./format.js";
import { LimitError, lines } from "./jsonl.js";
import { boundaryOf, MultipartError, multipartParts, type Part } from "./multipart.js";
import { json, openaiError } from "./respond.js";

/** Limits of uploads. */
export interface UploadLimits {
  readonly maxFileBytes: number;
  readonly maxLineBytes: number;
  readonly fileTtlMs: number;
  readonly maxFilesPerTenant: number;
  readonly maxFileBytesPerTenant: number;
}

const quotaOf = (limits: UploadLimits): FileQuota => ({
  maxBytes: limits.maxFileBytesPerTenant,
  maxFiles: limits.maxFilesPerTenant,
});

const CHUNK = 500;
/** What a multipart upload may carry besides its file: boundaries, part headers, `purpose`. */
const FORM_BYTES = 65_536;
const SHOWN_ERRORS = 5;
const OUTPUT = /^file-(batch_[0-9a-f]+)-(output|errors)$/;

/**
 * A new file id: `file-` and 24 hex digits.
 *
 * @example
 * newFileId(); // "file-9c1e…"
 */
export function newFileId(): string {
  return `file-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

async function readText(part: Part, max: number): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of part.body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > max) throw new MultipartError(`The field \`${part.name}\` is too long`);
  }
  return text + decoder.decode();
}

/** Streams the file part into the store line by line, checking each; answers the errors found. */
async function storeLines(
  batches: Batches,
  file: FileRecord,
  part: Part,
  limits: UploadLimits,
): Promise<string[]> {
  const errors: string[] = [];
  const seen = new Map<string, number>();
  const counted = { bytes: 0 };
  let pending: string[] = [];
  let count = 0;
  for await (const line of lines(part.body, limits, counted)) {
    try {
      parseInputLine(line.text, line.number, seen, null);
    } catch (error) {
      if (errors.length < SHOWN_ERRORS) errors.push((error as Error).message);
      else errors.push("");
      continue;
    }
    if (++count > MAX_ITEMS) throw new LimitError(400, `The file has more than ${MAX_ITEMS} requests`);
    pending.push(line.text);
    if (pending.length >= CHUNK) {
      if (errors.length === 0) {
        await batches.store.appendFileLines(file.id, pending, counted.bytes, quotaOf(limits));
      }
      pending = [];
    }
  }
  if (errors.length === 0) {
    await batches.store.appendFileLines(file.id, pending, counted.bytes, quotaOf(limits));
  }
  if (count === 0 && errors.length === 0) errors.push("The file has no requests");
  return errors;
}

/**
 * `POST /v1/files`: a multipart upload with `purpose=batch` and a JSONL `file`, parsed line by line as
 * it arrives and stored in chunks; every line is checked, and malformed lines are answered with their
 * numbers (400), the file then not kept.
 *
 * @example
 * if (method === "POST" && path === "files") return upload(batches, request, tenant, limits);
 */
export async function upload(
  batches: Batches,
  request: Request,
  tenant: string,
  limits: UploadLimits,
): Promise<Response> {
  const boundary = boundaryOf(request.headers.get("content-type"));
  if (boundary === undefined || request.body === null) {
    return openaiError(400, "Expected a multipart/form-data body with `file` and `purpose`.", {
      param: "file",
    });
  }
  const maxBody = limits.maxFileBytes + FORM_BYTES;
  if (declaredAbove(request, maxBody)) {
    return openaiError(413, `The file is larger than the limit of ${limits.maxFileBytes} bytes.`, {
      code: "file_too_large",
      param: "file",
    });
  }
  const body = limitedStream(request.body, maxBody, "The upload");
  let purpose: string | undefined;
  let file: FileRecord | undefined;
  let errors: string[] = [];
  const expiry: ExpiresAfter = {};
  try {
    for await (const part of multipartParts(body, boundary)) {
      if (part.name === "purpose") purpose = (await readText(part, 64)).trim();
      else if (part.name in EXPIRES_AFTER)
        expiry[EXPIRES_AFTER[part.name]!] = (await readText(part, 64)).trim();
      else if (part.name === "file" && file === undefined) {
        file = newRecord(batches, tenant, part, limits);
        await batches.store.createFile(file, quotaOf(limits));
        errors = await storeLines(batches, file, part, limits);
      }
    }
  } catch (error) {
    if (file !== undefined) await batches.store.deleteFile(file.id);
    return uploadError(error);
  }
  return (await applyExpiry(batches, file, expiry, limits)) ?? finishUpload(batches, file, purpose, errors);
}

function newRecord(batches: Batches, tenant: string, part: Part, limits: UploadLimits): FileRecord {
  const createdAt = batches.options.clock.now();
  return {
    id: newFileId(),
    tenant,
    purpose: "batch",
    filename: (part.filename ?? "input.jsonl").slice(0, 256),
    bytes: 0,
    lines: 0,
    createdAt,
    expiresAt: createdAt + limits.fileTtlMs,
  };
}

/** The answer to an upload that failed: a limit (413 or 400), bad multipart (400), a quota (429/503). */
function uploadError(error: unknown): Response {
  if (error instanceof LimitError) {
    const code = error.status === 413 ? "file_too_large" : null;
    return openaiError(error.status, error.message, { code, param: "file" });
  }
  if (error instanceof MultipartError) return openaiError(400, error.message, { param: "file" });
  if (error instanceof BatchError) {
    const { status, code } = batchErrorHttp(error.code);
    return openaiError(status, `${error.message}.`, { code, param: "file" });
  }
  throw error;
}

/** Sets the expiry `expires_after` asked for (it may come after the file); a 400 when it is invalid. */
async function applyExpiry(
  batches: Batches,
  file: FileRecord | undefined,
  expiry: ExpiresAfter,
  limits: UploadLimits,
): Promise<Response | undefined> {
  const expiresAt = expiresAtOf(expiry, file, limits.fileTtlMs);
  if (typeof expiresAt === "string") {
    if (file !== undefined) await batches.store.deleteFile(file.id);
    return openaiError(400, expiresAt, { param: "expires_after" });
  }
  if (file !== undefined && expiresAt !== file.expiresAt)
    await batches.store.setFileExpiry(file.id, expiresAt);
  return undefined;
}

async function finishUpload(
  batches: Batches,
  file: FileRecord | undefined,
  purpose: string | undefined,
  errors: string[],
): Promise<Response> {
  if (file === undefined) return openaiError(400, "The upload has no `file` field.", { param: "file" });
  if (purpose !== "batch" || errors.length > 0) await batches.store.deleteFile(file.id);
  if (purpose !== "batch") {
    return openaiError(400, `Expected \`purpose\` to be "batch", got ${JSON.stringify(purpose ?? null)}.`, {
      param: "purpose",
    });
  }
  if (errors.length > 0) {
    const shown = errors.filter((e) => e !== "").join("; ");
    const more =
      errors.length > SHOWN_ERRORS ? ` (and ${errors.length - SHOWN_ERRORS} more invalid lines)` : "";
    return openaiError(400, `The file has invalid lines: ${shown}${more}`, {
      code: "invalid_file",
      param: "file",
    });
  }
  return json(200, fileObject((await batches.store.getFile(file.id))!));
}

/** The batch whose output or error file `fileId` names, when the tenant may see it. */
async function outputOf(batches: Batches, fileId: string, tenant: string) {
  const match = OUTPUT.exec(fileId);
  if (match === null) return undefined;
  const batch = await batches.get(match[1]!);
  if (batch === undefined || !sameTenant(batch.tenant, tenant)) return undefined;
  return { batch, errors: match[2] === "errors" };
}

/** A file the tenant may not see: none, another tenant's, or expired (before a sweep deletes it). */
const gone = (batches: Batches, file: FileRecord | undefined, tenant: string): boolean =>
  file === undefined || !sameTenant(file.tenant, tenant) || file.expiresAt <= batches.options.clock.now();

const notFound = (id: string): Response =>
  openaiError(404, `No such File object: ${id.slice(0, 128)}`, { code: "not_found", param: "id" });

/**
 * `GET /v1/files/{id}`: an input file, or a batch's output or error file.
 *
 * @example
 * return getFile(batches, "file-abc", tenant);
 */
export async function getFile(batches: Batches, fileId: string, tenant: string): Promise<Response> {
  const output = await outputOf(batches, fileId, tenant);
  if (output !== undefined) {
    const { batch, errors } = output;
    const filename = `${batch.id}_${errors ? "error" : "output"}.jsonl`;
    const record = {
      id: fileId,
      tenant,
      purpose: "batch_output",
      filename,
      bytes: 0,
      lines: 0,
      createdAt: batch.createdAt,
      expiresAt: null,
    };
    return json(200, fileObject(record));
  }
  const file = await batches.store.getFile(fileId);
  return gone(batches, file, tenant) ? notFound(fileId) : json(200, fileObject(file!));
}

/**
 * `DELETE /v1/files/{id}`.
 *
 * @example
 * return deleteFile(batches, "file-abc", tenant);
 */
export async function deleteFile(batches: Batches, fileId: string, tenant: string): Promise<Response> {
  const file = await batches.store.getFile(fileId);
  if (gone(batches, file, tenant)) return notFound(fileId);
  await batches.store.deleteFile(fileId);
  return json(200, { id: fileId, object: "file", deleted: true });
}

/** A stream of text lines pulled page by page from `page(from)`; nothing is held beyond one page. */
function lineStream(
  page: (from: number) => Promise<{ lines: string[]; next: number } | undefined>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let from = 0;
  return new ReadableStream({
    async pull(controller) {
      const next = await page(from);
      if (next === undefined) {
        controller.close();
        return;
      }
      from = next.next;
      if (next.lines.length > 0) controller.enqueue(encoder.encode(`${next.lines.join("\n")}\n`));
    },
  });
}

/**
 * `GET /v1/files/{id}/content`: the stored lines, or a batch's results in OpenAI's line format.
 *
 * @example
 * return fileContent(batches, batch.outputFileId, tenant);
 */
export async function fileContent(batches: Batches, fileId: string, tenant: string): Promise<Response> {
  const headers = { "content-type": "application/jsonl" };
  const output = await outputOf(batches, fileId, tenant);
  if (output !== undefined) {
    const { batch, errors } = output;
    const body = lineStream(async (from) => {
      const page = await batches.store.results(batch.id, from, CHUNK);
      if (page.length === 0) return undefined;
      const wanted = page.filter((result) => (result.error !== null) === errors);
      return {
        lines: wanted.map((result) => resultLine(batch.id, result)),
        next: page[page.length - 1]!.index + 1,
      };
    });
    return new Response(body, { status: 200, headers });
  }
  const file = await batches.store.getFile(fileId);
  if (gone(batches, file, tenant) || file === undefined) return notFound(fileId);
  const body = lineStream(async (from) => {
    if (from >= file.lines) return undefined;
    return { lines: await batches.store.fileLines(fileId, from, CHUNK), next: from + CHUNK };
  });
  return new Response(body, { status: 200, headers });
}
