// The production entry point: `node server/main.ts` (through `npm start`).
import module from "node:module";

// V8's code cache and the type-stripped source of every module loaded from here on are kept on
// disk (NODE_COMPILE_CACHE, else the temporary directory) and reused by the next start:
// TypeScript is stripped once per file version, not at every start (decision 037). The imports
// below are dynamic so that they come after this call.
module.enableCompileCache();

const { ConfigError, loadConfig } = await import("./platform/config/config.ts");
const { startServer } = await import("./start.ts");
const { exitProcess } = await import("./exit.ts");

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const server = await startServer(config);
const { logger } = server.services;
if (config.secretSource === "file") {
  logger.warn(
    `SECRET is not set: using the secret generated in ${config.dataDir}/secret. Set SECRET in production.`,
  );
}
if (!config.smtpUrl) logger.info(`SMTP_URL is not set: mail is written to ${config.outboxDir}`);
logger.info(`Packyard listening on ${config.baseUrl} (port ${server.port}, ${config.database.kind})`);

let shuttingDown = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info(`${signal} received: finishing in-flight requests`);
    server.stop().then(
      () => exitProcess(0),
      (error) => {
        logger.error("shutdown failed", error);
        exitProcess(1);
      },
    );
  });
}
