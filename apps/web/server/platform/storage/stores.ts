// The two stores a server uses, blobs (uploaded files) and published index files: on the local
// disk under DATA_DIR by default, in the S3 bucket when S3_* is configured (nothing of either
// under DATA_DIR then).
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import { type BlobStore, createLocalBlobStore } from "./blob-store.ts";
import { createS3BlobStore, createS3Client } from "./s3-blob-store.ts";

export interface Stores {
  blobs: BlobStore;
  indexes: BlobStore;
  /** Where they are, for the log: "local disk" or "s3://bucket/prefix". */
  description: string;
  close(): void;
}

export function createStores(config: Pick<Config, "blobDir" | "dataDir" | "s3">): Stores {
  if (!config.s3) {
    return {
      blobs: createLocalBlobStore(config.blobDir),
      indexes: createLocalBlobStore(join(config.dataDir, "indexes")),
      description: "local disk",
      close() {},
    };
  }
  const { bucket, prefix } = config.s3;
  const client = createS3Client(config.s3);
  return {
    blobs: createS3BlobStore(client, bucket, `${prefix}blobs/`),
    indexes: createS3BlobStore(client, bucket, `${prefix}indexes/`),
    description: `s3://${bucket}/${prefix}`,
    close: () => client.destroy(),
  };
}
