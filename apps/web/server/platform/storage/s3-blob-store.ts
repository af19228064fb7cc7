// The BlobStore (blob-store.ts) on S3-compatible object storage, for running several servers
// on one bucket. Nothing touches the local disk:
// - stage() streams the body through the hashes (sha256 and those asked for). A body that fits in
//   one part (5 MiB: a package, mostly) stays in memory: read() answers from it and commit() puts
//   it straight to <root>sha256/<sha256>: one request, where a temporary object cost five one
//   after another on the upload's path (PUT, GET to parse it, HEAD, COPY, DELETE; issue 44). No
//   HEAD first: the key only ever holds whole content with that hash, so writing the same bytes
//   again is harmless.
// - A larger body goes into a multipart upload (lib-storage's Upload) under
//   <root>tmp/<uuid>.part, a part at a time, so memory holds a few parts, never the file; an
//   error or an over-limit body aborts the upload and leaves nothing. commit() copies it to
//   <root>sha256/<sha256> (kept when already there: a HEAD spares a server-side copy of
//   megabytes) and deletes the temporary one: the content key only ever holds whole, hashed content.
// - open() is a ranged GetObject whose body is read at the client's pace; stat() is HeadObject;
//   listPage() is ListObjectsV2 with its continuation token as the cursor.
// - presignGet() signs a GetObject URL (S3_PRESIGNED_DOWNLOADS) with the response's
//   Content-Type and Content-Disposition in it; signing is local, no request is made.
// Decision 021 records why.
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import {
  type BlobDigests,
  type BlobEntry,
  BlobMissingError,
  type BlobStore,
  BlobTooLargeError,
  isHex64,
  listAll,
  type StagedBlob,
} from "./blob-store.ts";
import { ALL_EXTRA_DIGESTS, createDigester } from "./digests.ts";

export interface S3Settings {
  bucket: string;
  /** Another S3-compatible service (MinIO, R2, s3rver, …); unset: AWS. */
  endpoint?: string;
  region: string;
  /** Unset: the SDK's default credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** Prepended to every key ("" or ending in "/"). */
  prefix: string;
  /**
   * S3_PRESIGNED_DOWNLOADS: release file downloads are redirected to presigned GetObject URLs
   * valid this long (S3_PRESIGNED_EXPIRES_SECONDS); unset, they are streamed through the server.
   */
  presignedDownloads?: { expiresSeconds: number };
}

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // With the default (WHEN_SUPPORTED) a streamed upload to some S3-compatible servers (s3rver)
    // is stored with the checksum trailer in its bytes; whole content is hashed by us anyway.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // Downloads hold a connection for as long as the client reads.
    requestHandler: {
      httpAgent: { keepAlive: true, maxSockets: 512 },
      httpsAgent: { keepAlive: true, maxSockets: 512 },
    },
  });
}

const isNotFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
};

/** `length` bytes of `source` after skipping `skip`. */
async function* slice(source: Readable, skip: number, length: number): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of source as AsyncIterable<Uint8Array>) {
      if (length <= 0) break;
      let part = chunk;
      if (skip > 0) {
        const skipped = Math.min(skip, part.byteLength);
        skip -= skipped;
        part = part.subarray(skipped);
      }
      if (part.byteLength === 0) continue;
      if (part.byteLength > length) part = part.subarray(0, length);
      length -= part.byteLength;
      yield part;
    }
  } finally {
    source.destroy();
  }
}

/** A Readable that starts the request only when first read, so read() can be synchronous. */
function lazyBody(get: () => Promise<Readable>): Readable {
  return Readable.from(
    (async function* () {
      const body = await get();
      try {
        yield* body;
      } finally {
        body.destroy();
      }
    })(),
    { objectMode: false },
  );
}

/** lib-storage's default part size, and its minimum. */
const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

export interface S3StoreOptions {
  /** Multipart part size (bytes, at least 5 MiB); a body up to this size is staged in memory. */
  partSize?: number;
  /** Parts uploaded at once per stage(). */
  queueSize?: number;
}

/** A store under `<root>` in the bucket (root "" or ending in "/"). */
export function createS3BlobStore(
  client: S3Client,
  bucket: string,
  root: string,
  options: S3StoreOptions = {},
): BlobStore {
  const tmpPrefix = `${root}tmp/`;
  const blobPrefix = `${root}sha256/`;
  const keyOf = (sha256: string) => {
    if (!isHex64(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return `${blobPrefix}${sha256}`;
  };
  const remove = (key: string) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  const get = async (key: string, range?: { start: number; end: number }) => {
    const response = await client.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    const body = response.Body as Readable;
    if (!range) return body;
    // HTTP lets a server answer more than the range asked for (the whole object, or a wider
    // range: s3rver reads "bytes=0-0" as "bytes=0-"): cut it to what was asked.
    const served = /^bytes (\d+)-(\d+)\//.exec(response.ContentRange ?? "");
    const servedStart = served ? Number(served[1]) : 0;
    const wanted = range.end - range.start + 1;
    if (servedStart === range.start && Number(response.ContentLength) === wanted) return body;
    if (servedStart > range.start) {
      body.destroy();
      throw new Error(`storage answered bytes from ${servedStart} for a range from ${range.start}`);
    }
    return Readable.from(slice(body, range.start - servedStart, wanted), { objectMode: false });
  };
  const head = async (key: string) => {
    try {
      const h = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: Number(h.ContentLength ?? 0), modifiedAt: h.LastModified?.getTime() ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const empty = (range?: { start: number; end: number }) => range !== undefined && range.end < range.start;

  /** A staged body held in memory (one part at most): nothing is written before commit(). */
  const stagedInMemory = (whole: Buffer, digests: BlobDigests): StagedBlob => {
    let settled = false;
    return {
      ...digests,
      read(range) {
        return Readable.from([range ? whole.subarray(range.start, range.end + 1) : whole], {
          objectMode: false,
        });
      },
      async commit() {
        if (settled) return;
        settled = true;
        // Straight to the content key, without a HEAD: it holds these very bytes or nothing.
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(digests.sha256), Body: whole }));
      },
      async discard() {
        settled = true;
      },
    };
  };

  const store: BlobStore = {
    async stage(body, { maxBytes, digests: wanted = ALL_EXTRA_DIGESTS, extraDigestsUpTo, keepDigests }) {
      const partSize = options.partSize ?? DEFAULT_PART_SIZE;
      const digester = createDigester(wanted, { extraUpTo: extraDigestsUpTo, keep: keepDigests });
      let size = 0;
      // The body's own failure (or the size limit), which is what the caller must see even when
      // aborting the multipart upload fails too.
      let failure: unknown;
      const received = (async function* () {
        try {
          for await (const chunk of body) {
            size += chunk.byteLength;
            if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
            digester.update(chunk);
            yield chunk;
          }
        } catch (error) {
          failure = error;
          throw error;
        }
      })();
      // The beginning of the body, until it ends or outgrows one part: never more than a part
      // (and a chunk) in memory.
      const first: Uint8Array[] = [];
      let ended = false;
      try {
        while (size <= partSize) {
          const next = await received.next();
          if (next.done) {
            ended = true;
            break;
          }
          first.push(next.value);
        }
      } catch (error) {
        digester.abort();
        throw error;
      }
      if (ended) {
        const whole = Buffer.concat(first);
        first.length = 0;
        return stagedInMemory(whole, { ...(await digester.digest()), size });
      }

      const tmpKey = `${tmpPrefix}${randomUUID()}.part`;
      const source = Readable.from(
        (async function* () {
          // Handed over one at a time, so the Upload's parts are the only copy kept.
          while (first.length > 0) yield first.shift()!;
          yield* received;
        })(),
        { objectMode: false },
      );
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: tmpKey, Body: source },
        partSize,
        queueSize: options.queueSize ?? 2,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        source.destroy();
        // The upload failed before reading all of the body: it is let go (not waited for: a
        // stalled body would hold this answer).
        received.return(undefined).catch(() => {});
        digester.abort();
        await remove(tmpKey).catch(() => {});
        throw failure ?? error;
      }
      const digests: BlobDigests = { ...(await digester.digest()), size };
      let settled = false;
      return {
        ...digests,
        read(range) {
          if (empty(range)) return Readable.from([]);
          return lazyBody(() => get(tmpKey, range));
        },
        async commit() {
          if (settled) return;
          settled = true;
          const target = keyOf(digests.sha256);
          try {
            // Same content already stored: keep the existing copy.
            if (!(await head(target))) {
              await client.send(
                new CopyObjectCommand({
                  Bucket: bucket,
                  Key: target,
                  CopySource: `${bucket}/${tmpKey.split("/").map(encodeURIComponent).join("/")}`,
                }),
              );
            }
          } finally {
            await remove(tmpKey).catch(() => {});
          }
        },
        async discard() {
          if (settled) return;
          settled = true;
          await remove(tmpKey);
        },
      };
    },

    async putBytes(bytes, sha256) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(sha256), Body: bytes }));
    },

    async exists(sha256) {
      return (await head(keyOf(sha256))) !== undefined;
    },

    read(sha256, range) {
      if (empty(range)) return Readable.from([]);
      const key = keyOf(sha256);
      return lazyBody(() => get(key, range));
    },

    async open(sha256, range) {
      const key = keyOf(sha256);
      try {
        const body = await get(key, empty(range) ? undefined : range);
        if (empty(range)) {
          body.destroy();
          return Readable.from([]);
        }
        return body;
      } catch (error) {
        if (isNotFound(error)) throw new BlobMissingError(sha256, error);
        throw error;
      }
    },

    stat(sha256) {
      return head(keyOf(sha256));
    },

    async modifiedAt(sha256) {
      return (await head(keyOf(sha256)))?.modifiedAt;
    },

    async delete(sha256) {
      await remove(keyOf(sha256));
    },

    async listPage({ prefix = "", cursor, limit = 1000 } = {}) {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: `${blobPrefix}${prefix}`,
          MaxKeys: limit,
          ContinuationToken: cursor,
        }),
      );
      const entries: BlobEntry[] = [];
      for (const object of page.Contents ?? []) {
        const sha256 = object.Key?.slice(blobPrefix.length) ?? "";
        if (!isHex64(sha256)) continue;
        entries.push({
          sha256,
          size: Number(object.Size ?? 0),
          modifiedAt: object.LastModified?.getTime() ?? 0,
        });
      }
      return { entries, cursor: page.IsTruncated ? page.NextContinuationToken : undefined };
    },

    async presignGet(sha256, { expiresSeconds, contentType, contentDisposition }) {
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: keyOf(sha256),
        ResponseContentType: contentType,
        ResponseContentDisposition: contentDisposition,
      });
      return getSignedUrl(client, command, { expiresIn: expiresSeconds });
    },

    async *list(listOptions) {
      for await (const entry of listAll(store, listOptions)) yield entry.sha256;
    },

    async removeStaleTemporary(olderThanMs) {
      const cutoff = Date.now() - olderThanMs;
      let removed = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: tmpPrefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (!object.Key || (object.LastModified?.getTime() ?? 0) > cutoff) continue;
          await remove(object.Key);
          removed++;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      // Multipart uploads cut off by a crash (their parts cost storage until aborted). Not every
      // S3-compatible server lists them; a bucket lifecycle rule covers those.
      try {
        let keyMarker: string | undefined;
        let uploadIdMarker: string | undefined;
        do {
          const page = await client.send(
            new ListMultipartUploadsCommand({
              Bucket: bucket,
              Prefix: tmpPrefix,
              KeyMarker: keyMarker,
              UploadIdMarker: uploadIdMarker,
            }),
          );
          for (const upload of page.Uploads ?? []) {
            if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) > cutoff) continue;
            await client.send(
              new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
            );
            removed++;
          }
          keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
          uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
        } while (keyMarker);
      } catch {
        // not supported by this server
      }
      return removed;
    },
  };
  return store;
}
