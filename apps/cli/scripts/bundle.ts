// Builds the CLI that every Packyard serves (/cli/packyard.mjs): src/bin.ts with everything it
// imports (zod, the contract and formats code) in one ES module that needs only Node.js >= 22.
// Vite (Rolldown underneath) does the bundling; the web build runs this into build/cli/.
// Beside the bundle: packyard.mjs.sha256 and version.json, which the server reads back
// (decision 026).
//   node scripts/bundle.ts [OUT_DIR]   (default: ../web/build/cli)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "vite";

const root = join(import.meta.dirname, "..");
const outDir = resolve(process.argv[2] ?? join(root, "..", "web", "build", "cli"));
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

await build({
  configFile: false,
  root,
  logLevel: "warn",
  // context.ts reads the version from package.json unless the bundle carries it.
  define: { PACKYARD_CLI_VERSION: JSON.stringify(version) },
  ssr: { noExternal: true, target: "node" },
  build: {
    ssr: join(root, "src", "bin.ts"),
    outDir,
    emptyOutDir: true,
    target: "node22",
    minify: false,
    copyPublicDir: false,
    rolldownOptions: {
      output: { format: "es", entryFileNames: "packyard.mjs", banner: "#!/usr/bin/env node" },
    },
  },
});

const bundle = readFileSync(join(outDir, "packyard.mjs"));
const sha256 = createHash("sha256").update(bundle).digest("hex");
writeFileSync(join(outDir, "packyard.mjs.sha256"), `${sha256}  packyard.mjs\n`);
writeFileSync(join(outDir, "version.json"), `${JSON.stringify({ version, sha256 })}\n`);
