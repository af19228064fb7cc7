// Browser uploads: multipart/form-data with one or more `file` parts, streamed part by part into
// a handler. The first failure ends the request at once: the rest of the body is not read (the
// client gets its answer while it may still be sending) and the caller undoes the parts already
// stored, so a request is stored whole or not at all.
import Busboy from "busboy";
import { DomainError } from "../core/errors.ts";

/** Room for part headers and boundaries around a file of the largest size. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export interface MultipartFile {
  filename: string;
  body: AsyncIterable<Uint8Array>;
  /** Form fields sent before this file part. */
  fields: Record<string, string>;
}

export async function receiveMultipart(
  request: Request,
  options: {
    maxBytes: number;
    maxFiles: number;
    /** The body as it arrives (platform/http/upload-body.ts); default: the request's web stream. */
    body?: AsyncIterable<Uint8Array>;
  },
  onFile: (file: MultipartFile) => Promise<void>,
): Promise<void> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.startsWith("multipart/form-data")) {
    throw new DomainError(
      "VALIDATION_FAILED",
      "Send multipart/form-data with one or more file parts, or PUT the file",
    );
  }
  // Every file of one request together fits the upload limit: a larger declared body is refused
  // before a byte of it is read.
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > options.maxBytes + MULTIPART_OVERHEAD_BYTES) {
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `The upload is larger than the limit of ${options.maxBytes} bytes`,
    );
  }
  const body = options.body ?? (request.body as AsyncIterable<Uint8Array> | null);
  if (!body) throw new DomainError("VALIDATION_FAILED", "The request has no body");

  let parser: Busboy.Busboy;
  try {
    parser = Busboy({
      headers: { "content-type": contentType },
      limits: { fileSize: options.maxBytes + 1, files: options.maxFiles },
    });
  } catch {
    throw new DomainError("VALIDATION_FAILED", "Malformed multipart body");
  }
  const reader = body[Symbol.asyncIterator]();
  let received = 0;
  // The files' bytes, all parts together: what MAX_UPLOAD_BYTES bounds (docs/api.md).
  let fileBytes = 0;
  const tooLarge = () =>
    new DomainError(
      "PAYLOAD_TOO_LARGE",
      `The files of this upload together are larger than the limit of ${options.maxBytes} bytes`,
    );
  async function* counted(stream: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    for await (const chunk of stream) {
      fileBytes += chunk.byteLength;
      if (fileBytes > options.maxBytes) throw tooLarge();
      yield chunk;
    }
  }

  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let chain = Promise.resolve();
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // Stop reading: nothing more of this request is wanted.
      reader.return?.()?.catch(() => {});
      parser.destroy();
      // Answer once the part being stored has finished or failed, so the caller's undo sees
      // every file this request stored (a part still in flight would otherwise land after it).
      chain.then(() => reject(error));
    };
    const fields: Record<string, string> = {};
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("file", (_field, stream, info) => {
      // A request ended early ends its file streams with an error; whoever reads one sees it.
      stream.on("error", () => {});
      chain = chain.then(async () => {
        if (settled) {
          stream.resume();
          return;
        }
        try {
          await onFile({
            filename: info.filename ?? "",
            body: counted(stream as AsyncIterable<Uint8Array>),
            fields: { ...fields },
          });
        } catch (error) {
          stream.resume();
          fail(error);
        }
      });
    });
    parser.on("error", () => fail(new DomainError("VALIDATION_FAILED", "Malformed multipart body")));
    parser.on("close", () => {
      chain.then(() => {
        if (settled) return;
        settled = true;
        resolve();
      }, fail);
    });
    (async () => {
      for (;;) {
        const { done, value } = await reader.next();
        if (settled) return;
        if (done) break;
        received += value.byteLength;
        // Nor may part headers and fields pad the body without end.
        if (received > options.maxBytes + MULTIPART_OVERHEAD_BYTES) throw tooLarge();
        if (!parser.write(value)) await new Promise((r) => parser.once("drain", r));
      }
      parser.end();
    })().catch(fail);
  });
}
