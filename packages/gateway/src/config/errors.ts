/**
 * A configuration that cannot be served: unreadable, not YAML/JSON, a missing environment variable, an
 * unknown key or a bad value. `message` is one line naming the path, never a credential's value.
 *
 * @example
 * try { await parseConfig(text) } catch (error) { if (error instanceof ConfigError) console.error(error.message) }
 */
export class ConfigError extends Error {
  readonly code = "INVALID_CONFIG";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message.replace(/\s*\n\s*/g, " "), options);
    this.name = "ConfigError";
  }
}
