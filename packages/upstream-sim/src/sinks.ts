import type { ServerResponse } from "node:http";
import type { TokenSink } from "./generate.js";
import { sendJson } from "./http-io.js";
import {
  chunkObject,
  completionObject,
  type ResponseIdentity,
  sseData,
  sseDone,
  usage,
} from "./openai-format.js";

/**
 * A sink that streams OpenAI chunks as server-sent events. The headers go out at once (the sequence
 * has been admitted); a chat stream sends its role chunk just before the first token.
 *
 * @example
 * const sink = createStreamSink(res, identity, { includeUsage: true, promptTokens: 12 });
 */
export function createStreamSink(
  res: ServerResponse,
  identity: ResponseIdentity,
  options: { readonly includeUsage: boolean; readonly promptTokens: number },
): TokenSink {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  const write = (part: Parameters<typeof chunkObject>[1]): void => {
    res.write(sseData(chunkObject(identity, part, options.includeUsage)));
  };
  let started = false;
  return {
    token(text) {
      if (!started && identity.endpoint === "chat") write({ kind: "role" });
      started = true;
      write({ kind: "token", text });
    },
    finish(finishReason, completionTokens) {
      write({ kind: "finish", finishReason });
      if (options.includeUsage)
        write({ kind: "usage", usage: usage(options.promptTokens, completionTokens) });
      res.end(sseDone);
    },
  };
}

/**
 * A sink that gathers the tokens and answers one `chat.completion` or `text_completion` object at the
 * end.
 *
 * @example
 * const sink = createBufferSink(res, identity, 12);
 */
export function createBufferSink(
  res: ServerResponse,
  identity: ResponseIdentity,
  promptTokens: number,
): TokenSink {
  let text = "";
  return {
    token(token) {
      text += token;
    },
    finish(finishReason, completionTokens) {
      sendJson(
        res,
        200,
        completionObject(identity, text, finishReason, usage(promptTokens, completionTokens)),
      );
    },
  };
}
