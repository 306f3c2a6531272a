/**
 * Passes `body` through unchanged, chunk by chunk as the client reads it, calls `first` (if given) when
 * the first chunk is read, and calls `done` exactly once:
 * after the last chunk has been read (with no failure), when the reader cancels (the client has gone:
 * runtimes cancel a response body on disconnect) once the source has finished cancelling (an upstream
 * fetch whose body it is has then been torn down), or when the source errors (with its error).
 * Web streams only, so it runs on Node, Bun, Deno and workers alike.
 *
 * @example
 * const held = holdBody(response.body, (failure) => permit.release(failure));
 * return new Response(held, response);
 */
export function holdBody<T>(
  body: ReadableStream<T>,
  done: (failure?: unknown) => void,
  first?: () => void,
): ReadableStream<T> {
  const reader = body.getReader();
  let before = first;
  let open = true;
  const finish = (failure?: unknown): void => {
    if (!open) return;
    open = false;
    done(failure);
  };
  return new ReadableStream<T>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<T>;
        try {
          result = await reader.read();
        } catch (error) {
          finish(error);
          controller.error(error);
          return;
        }
        if (result.done) {
          controller.close();
          finish();
        } else {
          if (before !== undefined) {
            before();
            before = undefined;
          }
          controller.enqueue(result.value);
        }
      },
      async cancel(reason) {
        try {
          await reader.cancel(reason);
        } finally {
          finish();
        }
      },
    },
    // Read from the source only when the client asks, so "last chunk read" means "last chunk sent".
    { highWaterMark: 0 },
  );
}
