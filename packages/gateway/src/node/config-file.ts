import { readFile } from "node:fs/promises";
import { ConfigError } from "../config/errors.js";
import { parseConfig, type ResolvedConfig } from "../config/resolve.js";

/**
 * A configuration file read and checked, `${VAR}` from `env`. Every failure is a {@link ConfigError}
 * whose message is one line starting with the file's name.
 *
 * @example
 * const config = await loadConfigFile("gateway.yaml");
 */
export async function loadConfigFile(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ResolvedConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError(`${file}: cannot be read (${code})`, { cause: error });
  }
  try {
    return await parseConfig(text, env);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`${file}: ${error.message}`, { cause: error });
    throw error;
  }
}
