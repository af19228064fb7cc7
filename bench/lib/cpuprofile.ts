// Reads a V8 CPU profile (.cpuprofile) of the server taken while it handled the (b) uploads (APT
// or YUM) and
// says where its main thread spent the time: per category (the innermost frame that matches a
// known kind of work) and the functions with the most self time. "(idle)" is the main thread
// waiting — on fsync and file writes in libuv's thread pool, on the network, or between runs.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const categories: [string, (frame: CallFrame) => boolean][] = [
  // YUM: both the uploaded .rpm's header signature and repomd.xml.asc (async stacks do not say which).
  ["OpenPGP signing (openpgp.js)", (f) => f.url.includes("/openpgp/")],
  // YUM uploads: the .rpm is read and re-signed before it is stored.
  ["reading the .rpm (read-rpm, header parsing)", (f) => /formats\/src\/rpm\/(?!sign-rpm)/.test(f.url)],
  ["gzip (zlib)", (f) => f.url === "node:zlib" || /gzip|deflate|zlib/i.test(f.functionName)],
  ["hashing (node:crypto)", (f) => f.url.startsWith("node:internal/crypto/hash")],
  [
    "sorting (compareDebianVersions)",
    (f) => f.url.includes("debian-version.ts") || f.functionName === "sort",
  ],
  ["rendering Packages/Release text", (f) => /packages-index|release-file|packages-stanza/.test(f.url)],
  [
    "rendering repodata XML (fragments at upload, documents, repomd)",
    (f) => /formats\/src\/yum\/(?!repodata-file)/.test(f.url),
  ],
  ["SQLite + Kysely", (f) => /kysely|node-sqlite|node:sqlite/.test(f.url)],
  // Scale mode: the PostgreSQL driver and the S3 client (bench/scale).
  [
    "PostgreSQL driver (pg, pg-protocol)",
    (f) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(f.url),
  ],
  ["S3 client (@aws-sdk, @smithy)", (f) => /node_modules\/(@aws-sdk|@smithy|@aws-crypto)\//.test(f.url)],
  ["better-auth (API key check)", (f) => f.url.includes("better-auth") || f.url.includes("@better-auth")],
  [
    "HTTP (node:http, Hono, streams)",
    (f) => /hono|node:_http|node:internal\/streams|node:stream|undici/.test(f.url),
  ],
  ["file system calls (node:fs)", (f) => f.url.startsWith("node:internal/fs") || f.url === "node:fs"],
  ["TextEncoder (string → bytes)", (f) => f.url === "node:internal/encoding"],
  [
    "index build bookkeeping (de-duplicate, filter per architecture, loops)",
    (f) =>
      /build-index\.ts|formats\/(apt|yum)\/builder\.ts|repodata-file\.ts|publisher\.ts|repository\.ts/.test(
        f.url,
      ),
  ],
  [
    "upload handling (route, uploadFile, .deb parsing)",
    (f) => /http\/api\/|domain\/files\.ts|\/deb\/|yum\/ingest\.ts|sign-rpm\.ts/.test(f.url),
  ],
];

/** The profiler itself and the benchmark's IPC handler are not the server's work. */
const harness = (stack: CallFrame[]) =>
  stack.some(
    (f) =>
      f.url.startsWith("node:inspector") || (f.url.endsWith("packyard-child.ts") && f.functionName === ""),
  );

/** Our own code: the app and the formats package (not node_modules, not node internals). */
const ours = (f: CallFrame) => /\/(apps|packages)\//.test(f.url) && !f.url.includes("/node_modules/");

function categoryOf(stack: CallFrame[]): string {
  if (harness(stack)) return "(benchmark harness: profiler, IPC — excluded)";
  for (const frame of stack) {
    for (const [name, test] of categories) if (test(frame)) return name;
  }
  const leaf = stack[0]!;
  if (leaf.functionName === "(idle)") return "(idle: waiting on I/O or for the next request)";
  if (leaf.functionName === "(garbage collector)") return "garbage collection";
  if (leaf.functionName === "(program)") return "(program: V8/native, not attributed)";
  return "other JavaScript";
}

export function summarizeCpuProfile(profile: CpuProfile, publishes: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackOf = new Map<number, CallFrame[]>();
  const stack = (id: number): CallFrame[] => {
    let cached = stackOf.get(id);
    if (!cached) {
      cached = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
        cached.push(byId.get(at)!.callFrame);
      stackOf.set(id, cached);
    }
    return cached;
  };
  const perCategory = new Map<string, number>();
  const perFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    const frames = stack(id);
    const category = categoryOf(frames);
    if (harness(frames)) return;
    if (frames[0]!.functionName !== "(idle)") busy += micros;
    const name = (f: CallFrame) =>
      `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(apps|packages)\//, "$1/")}:${f.lineNumber + 1}`;
    for (const key of new Set(frames.filter(ours).map(name)))
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
    perCategory.set(category, (perCategory.get(category) ?? 0) + micros);
    // A native leaf (no url) is named with its caller: "writeSync ← processChunkSync node:zlib".
    const first = frames[0]!;
    const native = !first.url && !first.functionName.startsWith("(") && frames.length > 1;
    const leaf = native
      ? { ...frames[1]!, functionName: `${first.functionName} ← ${frames[1]!.functionName}` }
      : first;
    const where = leaf.url
      ? ` ${leaf.url.replace(/^.*\/(node_modules|apps|packages)\//, "$1/")}:${leaf.lineNumber + 1}`
      : "";
    const key = `${leaf.functionName || "(anonymous)"}${where}`;
    perFunction.set(key, (perFunction.get(key) ?? 0) + micros);
  });
  const msPerPublish = (micros: number) => Math.round((micros / 1000 / publishes) * 10) / 10;
  return {
    note: "main-thread milliseconds per upload, from the sampling profile (100 µs interval); idle includes the pauses between uploads",
    busyMsPerUpload: msPerPublish(busy),
    categories: [...perCategory]
      .sort((a, b) => b[1] - a[1])
      .map(([name, micros]) => ({ name, ms: msPerPublish(micros) })),
    topInclusiveOurs: [...inclusive]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, micros]) => ({ name, ms: msPerPublish(micros) })),
    topSelf: [...perFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([name, micros]) => ({ name, ms: msPerPublish(micros) })),
  };
}
