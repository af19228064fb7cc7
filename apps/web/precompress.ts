// A Vite plugin that writes a Brotli (.br) and a gzip (.gz) copy beside every compressible file
// of the browser build, once; the server hands them out with serveStatic's `precompressed`
// option (server/platform/http/app.ts) instead of compressing on every request.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|txt|xml|html|map)$/;
/** Below this, compression saves less than a packet. */
const MIN_BYTES = 1024;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

export function precompress(): Plugin {
  return {
    name: "packyard-precompress",
    apply: "build",
    applyToEnvironment: (environment) => environment.name === "client",
    writeBundle(options) {
      if (!options.dir) return;
      for (const path of files(options.dir)) {
        if (!COMPRESSIBLE.test(path) || statSync(path).size < MIN_BYTES) continue;
        const body = readFileSync(path);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}
