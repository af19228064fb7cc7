// S3_*: object storage for blobs and indexes, all or nothing.
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { ConfigError, loadConfig } from "./config.ts";

const load = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: makeTempDir("packyard-config-s3-"), ...env });
function issuesOf(env: Record<string, string>) {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("S3_* configuration", () => {
  it("is off without any S3_* variable", () => {
    expect(load({}).s3).toBeUndefined();
  });

  it("reads every variable", () => {
    expect(
      load({
        S3_BUCKET: "packyard",
        S3_ENDPOINT: "http://127.0.0.1:9000/",
        S3_REGION: "eu-west-1",
        S3_ACCESS_KEY_ID: "key",
        S3_SECRET_ACCESS_KEY: "secret",
        S3_FORCE_PATH_STYLE: "true",
        S3_PREFIX: "/prod",
      }).s3,
    ).toEqual({
      bucket: "packyard",
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      credentials: { accessKeyId: "key", secretAccessKey: "secret" },
      forcePathStyle: true,
      prefix: "prod/",
    });
  });

  it("needs only the bucket (AWS region default, the SDK's credential chain)", () => {
    expect(load({ S3_BUCKET: "packyard" }).s3).toEqual({
      bucket: "packyard",
      endpoint: undefined,
      region: "us-east-1",
      credentials: undefined,
      forcePathStyle: false,
      prefix: "",
    });
  });

  it("names what is missing", () => {
    expect(issuesOf({ S3_ENDPOINT: "http://127.0.0.1:9000", S3_REGION: "us-east-1" })).toEqual([
      { variable: "S3_BUCKET", message: "must be set with S3_ENDPOINT, S3_REGION" },
    ]);
    expect(issuesOf({ S3_BUCKET: "packyard", S3_ACCESS_KEY_ID: "key" })).toEqual([
      { variable: "S3_SECRET_ACCESS_KEY", message: "must be set with S3_ACCESS_KEY_ID" },
    ]);
    expect(issuesOf({ S3_BUCKET: "packyard", S3_SECRET_ACCESS_KEY: "secret" })).toEqual([
      { variable: "S3_ACCESS_KEY_ID", message: "must be set with S3_SECRET_ACCESS_KEY" },
    ]);
    expect(issuesOf({ S3_BUCKET: "Not_A_Bucket" }).map((i) => i.variable)).toEqual(["S3_BUCKET"]);
    expect(issuesOf({ S3_BUCKET: "packyard", MAX_UPLOAD_BYTES: String(6 * 1024 ** 3) })).toEqual([
      { variable: "MAX_UPLOAD_BYTES", message: "must be at most 5 GiB (5368709120) with S3_BUCKET" },
    ]);
    expect(issuesOf({ S3_BUCKET: "packyard", S3_ENDPOINT: "ftp://x" }).map((i) => i.variable)).toEqual([
      "S3_ENDPOINT",
    ]);
  });
});

describe("S3_PRESIGNED_* configuration", () => {
  it("is off unless S3_PRESIGNED_DOWNLOADS is true", () => {
    expect(load({ S3_BUCKET: "packyard" }).s3?.presignedDownloads).toBeUndefined();
    expect(
      load({ S3_BUCKET: "packyard", S3_PRESIGNED_DOWNLOADS: "false" }).s3?.presignedDownloads,
    ).toBeUndefined();
    // false alone (no bucket) changes nothing and is accepted
    expect(load({ S3_PRESIGNED_DOWNLOADS: "false" }).s3).toBeUndefined();
  });

  it("reads the flag and the expiry (default 300 s, 10 to 3600)", () => {
    expect(load({ S3_BUCKET: "packyard", S3_PRESIGNED_DOWNLOADS: "true" }).s3?.presignedDownloads).toEqual({
      expiresSeconds: 300,
    });
    expect(
      load({ S3_BUCKET: "packyard", S3_PRESIGNED_DOWNLOADS: "1", S3_PRESIGNED_EXPIRES_SECONDS: "60" }).s3
        ?.presignedDownloads,
    ).toEqual({ expiresSeconds: 60 });
    for (const bad of ["5", "3601", "60.5", "soon"])
      expect(
        issuesOf({
          S3_BUCKET: "packyard",
          S3_PRESIGNED_DOWNLOADS: "true",
          S3_PRESIGNED_EXPIRES_SECONDS: bad,
        }).map((i) => i.variable),
        bad,
      ).toEqual(["S3_PRESIGNED_EXPIRES_SECONDS"]);
    expect(issuesOf({ S3_BUCKET: "packyard", S3_PRESIGNED_DOWNLOADS: "yes" }).map((i) => i.variable)).toEqual(
      ["S3_PRESIGNED_DOWNLOADS"],
    );
  });

  it("refuses presigned downloads without S3 storage", () => {
    expect(issuesOf({ S3_PRESIGNED_DOWNLOADS: "true" })).toEqual([
      {
        variable: "S3_PRESIGNED_DOWNLOADS",
        message: "needs S3 storage: set S3_BUCKET (and the other S3_* your service needs), or remove it",
      },
    ]);
    expect(
      issuesOf({ S3_PRESIGNED_DOWNLOADS: "true", S3_PRESIGNED_EXPIRES_SECONDS: "60" }).map((i) => i.variable),
    ).toEqual(["S3_PRESIGNED_DOWNLOADS", "S3_PRESIGNED_EXPIRES_SECONDS"]);
    // with another S3_* but no bucket, the bucket is what is named
    expect(issuesOf({ S3_ENDPOINT: "http://127.0.0.1:9000", S3_PRESIGNED_DOWNLOADS: "true" })).toEqual([
      { variable: "S3_BUCKET", message: "must be set with S3_ENDPOINT" },
    ]);
  });
});

afterAll(removeTempDirs);
