// Stored bytes as a response body, read at the client's pace: each chunk is read from storage
// only when the connection has taken the previous one (a pull stream with no read-ahead), so a
// client that stalls holds one chunk of server memory, not the file. The blob is opened before
// the response starts (dl-answer.ts), so a missing one is an error answer, never a 200 that
// ends early.
import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { Context } from "hono";

/** A web stream over a Node stream that reads only when the consumer asks. */
export function pullStream(
  source: Readable,
  onEnd?: () => void,
  meter?: DeliveryMeter,
): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await chunks.next();
          if (done) {
            controller.close();
            onEnd?.();
            meter?.end();
            return;
          }
          controller.enqueue(value as Uint8Array);
          meter?.chunk((value as Uint8Array).byteLength);
        } catch (error) {
          controller.error(error);
          meter?.cancel();
        }
      },
      cancel() {
        source.destroy();
        meter?.cancel();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Counts what a response body hands to the client's connection (see deliveryMeter). */
export interface DeliveryMeter {
  /** A chunk was taken by the connection. */
  chunk(bytes: number): void;
  /** The body's last byte was taken. */
  end(): void;
  /** The body was cut off: the client went away, or reading storage failed. */
  cancel(): void;
}

/**
 * Meters a response body: `report(sent, complete)` runs once, when the response is over, with the
 * bytes the connection took (a stream with no read-ahead hands over nothing the client did not
 * ask for) and whether the whole body reached the client — the response handed whole to the
 * connection (Node's `finish`), never for one that closed before that. In memory (tests calling
 * app.request) reading the body to its end is delivery.
 */
export function deliveryMeter(
  c: Context,
  report: (sent: number, complete: boolean) => void,
  /** The body's length: a connection closed after all of it left this process is complete too. */
  length?: number,
): DeliveryMeter {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  let sent = 0;
  let ended = false;
  let reported = false;
  const done = (complete: boolean) => {
    if (reported) return;
    reported = true;
    report(sent, complete);
  };
  if (outgoing) {
    outgoing.once("finish", () => done(ended));
    // A client that knows the length (apt, dnf, curl) may hang up as soon as the last byte
    // arrives, before this side has read the end of the stored file: every byte was handed to
    // the connection and none waits in its buffers, so it was delivered.
    outgoing.once("close", () =>
      done(length !== undefined && sent >= length && outgoing.writableLength === 0),
    );
  }
  return {
    chunk(bytes) {
      sent += bytes;
    },
    end() {
      ended = true;
      if (!outgoing) done(true);
    },
    cancel() {
      if (!outgoing) done(false);
    },
  };
}
