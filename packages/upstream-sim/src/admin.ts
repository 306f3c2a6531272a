import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "./errors.js";
import { readBody, sendError, sendJson } from "./http-io.js";

/** What the admin endpoints may do to the server they run on. */
export interface AdminControls {
  setSpeed(factor: number): void;
  /** Drops every connection and stops listening; listens again after `restartAfterMs` if given. */
  crash(restartAfterMs: number | undefined): void;
}

const WEEK_MS = 604_800_000;

/**
 * Serves `POST /admin/speed` (`{ "factor": 2 }`: every delay of later requests doubled) and
 * `POST /admin/crash` (`{ "restartAfterMs": 5000 }`, optional: answered 202, then every connection
 * dropped and the port closed, opened again after the delay). Returns false for other paths.
 *
 * @example
 * if (await handleAdmin(path, req, res, controls)) return;
 */
export function handleAdmin(
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  controls: AdminControls,
): boolean {
  if (path !== "/admin/speed" && path !== "/admin/crash") return false;
  if (req.method !== "POST") {
    req.resume();
    sendError(
      res,
      new HttpError(405, `Use POST on ${path}`, { code: "method_not_allowed", headers: { allow: "POST" } }),
    );
    return true;
  }
  readBody(req, 4_096)
    .then((text) => {
      const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
      if (path === "/admin/speed") {
        const factor = body.factor;
        if (typeof factor !== "number" || !(factor >= 0.01 && factor <= 1_000)) {
          throw new HttpError(400, "Expected `factor` to be a number from 0.01 to 1000", {
            code: "invalid_value",
          });
        }
        controls.setSpeed(factor);
        sendJson(res, 200, { factor });
        return;
      }
      const restartAfterMs = body.restartAfterMs;
      if (
        restartAfterMs !== undefined &&
        (typeof restartAfterMs !== "number" || !(restartAfterMs >= 0 && restartAfterMs <= WEEK_MS))
      ) {
        throw new HttpError(400, `Expected \`restartAfterMs\` to be a number from 0 to ${WEEK_MS}`, {
          code: "invalid_value",
        });
      }
      res.once("finish", () => controls.crash(restartAfterMs));
      sendJson(res, 202, { crashing: true, restartAfterMs: restartAfterMs ?? null });
    })
    .catch((error: unknown) => {
      const answer =
        error instanceof HttpError
          ? error
          : new HttpError(400, "Expected a JSON object", { code: "invalid_json" });
      sendError(res, answer);
    });
  return true;
}
