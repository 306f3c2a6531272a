/** The `type` of an OpenAI-style error body. */
export type ErrorType = "invalid_request_error" | "rate_limit_error" | "server_error" | "overloaded_error";

/** An OpenAI-style error body: `{ "error": { "message", "type", "param", "code" } }`. */
export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: ErrorType;
    readonly param: string | null;
    readonly code: string;
  };
}

/** Options of {@link HttpError} beyond status and message. */
export interface HttpErrorOptions {
  readonly type?: ErrorType;
  readonly code: string;
  readonly param?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * An error the simulator answers with: an HTTP status and an OpenAI-style body with a stable `code`.
 *
 * @example
 * throw new HttpError(400, "`messages` is required", { code: "missing_required_parameter", param: "messages" });
 */
export class HttpError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, options: HttpErrorOptions) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.type = options.type ?? "invalid_request_error";
    this.code = options.code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  /** The OpenAI-style JSON body of this error. */
  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}
