// An upload's progress bar, redrawn in place on a terminal at most ten times a second. Off a
// terminal (CI logs) there is no bar: push prints one line per finished file instead.
import type { Terminal } from "./context.ts";
import { formatBytes } from "./output.ts";

export interface Progress {
  update(sent: number): void;
  /** Erases the bar so the next line starts clean. */
  clear(): void;
}

const silent: Progress = { update() {}, clear() {} };

export function renderProgress(name: string, sent: number, total: number, columns: number): string {
  const fraction = total === 0 ? 1 : Math.min(1, sent / total);
  const right = ` ${String(Math.floor(fraction * 100)).padStart(3)}%  ${formatBytes(sent)} / ${formatBytes(total)}`;
  const label = name.length > 30 ? `${name.slice(0, 29)}…` : name;
  const width = Math.max(10, Math.min(40, columns - label.length - right.length - 4));
  const filled = Math.round(width * fraction);
  return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}]${right}`;
}

export function progressBar(terminal: Terminal, name: string, total: number, enabled: boolean): Progress {
  if (!enabled) return silent;
  let drawnAt = 0;
  return {
    update(sent) {
      const now = Date.now();
      if (now - drawnAt < 100 && sent < total) return;
      drawnAt = now;
      terminal.write(`\r\x1b[2K${renderProgress(name, sent, total, terminal.columns ?? 80)}`);
    },
    clear() {
      terminal.write("\r\x1b[2K");
    },
  };
}
