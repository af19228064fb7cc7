// An S3-compatible server for tests: s3rver (dev dependency) in a child process on 127.0.0.1, a
// free port, its data in a temporary directory, one empty bucket; stop() ends the process and
// removes the directory. A child process because s3rver's list continuation tokens use DES,
// which Node 24's OpenSSL offers only with --openssl-legacy-provider.
// Without s3rver installed the caller skips, except under CI=true, where that is a failure.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { createS3Client, type S3Settings } from "../server/platform/storage/s3-blob-store.ts";

export interface TestS3 {
  endpoint: string;
  settings: S3Settings;
  /** The same settings as S3_* environment variables. */
  env: Record<string, string>;
  /**
   * s3rver 3.7.1 removes a key's directory when a DeleteObject empties it, and a PutObject into
   * it at that moment kills s3rver (ENOENT, uncaught). Packyard puts and deletes temporary
   * objects under <prefix>{blobs,indexes}/tmp/ concurrently: tests that upload many files at
   * once keep one object in each so the directories never empty.
   */
  keepTemporaryDirectories(prefix: string): Promise<void>;
  stop(): Promise<void>;
}

/** The path of s3rver's module, or undefined when it is not installed (an error under CI=true). */
export async function loadS3rver(): Promise<string | undefined> {
  try {
    return createRequire(import.meta.url).resolve("s3rver");
  } catch (error) {
    if (process.env.CI === "true") throw new Error("s3rver is required under CI=true", { cause: error });
    return undefined;
  }
}

const runner = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: process.argv[2],
  configureBuckets: [{ name: process.argv[3], configs: [] }] });
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + "\\n"));
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
// Gone with the test process, even when it dies without stopping this one.
process.stdin.on("end", () => process.exit(0)).resume();
`;

export async function startS3rver(modulePath: string, bucket = "packyard-test"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "packyard-s3rver-"));
  const child: ChildProcess = spawn(
    process.execPath,
    ["--openssl-legacy-provider", "-e", runner, modulePath, directory, bucket],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (data: Buffer) => {
      out += data.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    child.once("error", reject);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3Settings = {
    bucket,
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    forcePathStyle: true,
    prefix: "",
  };
  return {
    endpoint,
    settings,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    async keepTemporaryDirectories(prefix) {
      const client = createS3Client(settings);
      for (const store of ["blobs", "indexes"])
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `${prefix}${store}/tmp/.keep`,
            Body: new Uint8Array(0),
          }),
        );
      client.destroy();
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
