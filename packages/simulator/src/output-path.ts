import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/**
 * A report path that cannot be written. The message names the flag and says why, in one line.
 *
 * @example
 * throw new OutputPathError("--html", "/nowhere/report.html", "its directory does not exist");
 */
export class OutputPathError extends Error {
  readonly code = "INVALID_OUTPUT_PATH";
  /** The absolute path that was checked. */
  readonly path: string;

  constructor(flag: string, path: string, reason: string) {
    super(`Cannot write \`${flag}\` to ${path}: ${reason}`);
    this.name = "OutputPathError";
    this.path = path;
  }
}

async function kindOf(path: string): Promise<"file" | "directory" | "other" | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
  } catch {
    return undefined;
  }
}

async function writable(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks, before a long run, that a report can be written to `path`: its directory exists and is
 * writable, and the path is not a directory (an existing file is overwritten, so it must be writable).
 * Resolves with the absolute path; rejects with an {@link OutputPathError}.
 *
 * @example
 * const reportPath = await checkOutputPath("--html", "out/report.html");
 */
export async function checkOutputPath(flag: string, path: string): Promise<string> {
  const absolute = resolve(path);
  if (path.trim() === "") throw new OutputPathError(flag, absolute, "the path is empty");
  const target = await kindOf(absolute);
  if (target === "directory") throw new OutputPathError(flag, absolute, "it is a directory; name a file");
  if (target === "other") throw new OutputPathError(flag, absolute, "it is not a regular file");
  if (target === "file") {
    if (!(await writable(absolute))) throw new OutputPathError(flag, absolute, "the file is not writable");
    return absolute;
  }
  const directory = dirname(absolute);
  const parent = await kindOf(directory);
  if (parent === undefined) throw new OutputPathError(flag, absolute, `${directory} does not exist`);
  if (parent !== "directory") throw new OutputPathError(flag, absolute, `${directory} is not a directory`);
  if (!(await writable(directory))) throw new OutputPathError(flag, absolute, `${directory} is not writable`);
  return absolute;
}
