export * from "./errors.ts";
export * from "./names.ts";
export * from "./schemas.ts";
