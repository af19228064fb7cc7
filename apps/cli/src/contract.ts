// The REST API contract shared with the server (packages/contract). It is unpublished
// TypeScript, so the build compiles it into the CLI's dist; every response the CLI reads is
// parsed with these schemas, never trusted.
export * from "../../../packages/contract/src/index.ts";
