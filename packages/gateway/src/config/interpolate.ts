import { ConfigError } from "./errors.js";

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `path.key`, or `path[index]` for arrays. */
const childPath = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;

/**
 * `value` with every `${NAME}` in its strings replaced by the environment variable's value. Done on the
 * parsed tree, so a variable's value is never read as YAML. A missing variable is a {@link ConfigError}
 * naming it and the path (never any value).
 *
 * @example
 * interpolate({ keys: [{ key: "${CHAT_KEY}" }] }, { CHAT_KEY: "sk-…" });
 */
export function interpolate(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  path = "",
): unknown {
  if (typeof value === "string") {
    return value.replace(VARIABLE, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new ConfigError(`${path || "config"}: environment variable \`${name}\` is not set`);
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, env, childPath(path, index)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: interpolate(field, env, childPath(path, key)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
