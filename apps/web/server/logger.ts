// A minimal leveled logger writing one line per event to stderr.
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export function createLogger(level: LogLevel): Logger {
  const enabled = (l: LogLevel) => order[l] >= order[level];
  const write = (l: LogLevel, message: string) => {
    if (enabled(l)) process.stderr.write(`${new Date().toISOString()} ${l.padEnd(5)} ${message}\n`);
  };
  return {
    debug: (m) => write("debug", m),
    info: (m) => write("info", m),
    warn: (m) => write("warn", m),
    error: (m, error) => write("error", error instanceof Error ? `${m}: ${error.stack ?? error.message}` : m),
  };
}
