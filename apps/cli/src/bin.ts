// The `packyard` executable (dist/bin.js loads the compiled copy of this file).
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
