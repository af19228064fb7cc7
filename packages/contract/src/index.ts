export * from "./audit.ts";
export * from "./auth-errors.ts";
export * from "./errors.ts";
export * from "./imports.ts";
export * from "./names.ts";
export * from "./repository-settings.ts";
export * from "./schemas.ts";
export * from "./webhooks.ts";
