#!/usr/bin/env node
// The `packyard` bin. In a checkout (src/ present) it runs the TypeScript source directly, so
// `npx packyard` works after `npm install` with no build step (Node >= 22.18 strips types; the
// workspace pins Node 24, which npx puts first on PATH). The published package ships no src/
// and runs the compiled dist/ (scripts/build.ts).
import { existsSync } from "node:fs";

const source = new URL("../src/bin.ts", import.meta.url);
await import(existsSync(source) ? source.href : "../dist/bin.js");
