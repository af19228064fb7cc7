// Shell commands in a terminal-like block (long lines wrap), each line copyable with the copy helper's toast
// (lib/copy.ts: "Copied to clipboard!"). Output lines are shown dimmed and are not copied.
import { cn } from "../../lib/utils.ts";
import { CopyButton } from "../ui/copy-button.tsx";

export type TerminalLine = { command: string; label?: string } | { output: string };

export function CommandBlock({
  lines,
  title,
  className,
}: {
  lines: TerminalLine[];
  title?: string;
  className?: string;
}) {
  return (
    <div
      className={cn(
        "min-w-0 overflow-hidden rounded-xl border border-border bg-[#0f172a] text-slate-100",
        className,
      )}
    >
      {title ? (
        <div className="flex items-center gap-2 border-b border-white/10 px-4 py-2 text-xs text-slate-300">
          <span className="flex gap-1.5" aria-hidden="true">
            <span className="size-2.5 rounded-full bg-white/20" />
            <span className="size-2.5 rounded-full bg-white/20" />
            <span className="size-2.5 rounded-full bg-white/20" />
          </span>
          <span className="ml-1 font-medium">{title}</span>
        </div>
      ) : null}
      <div className="grid gap-1 px-4 py-3 font-mono text-[13px] leading-6">
        {lines.map((line, index) =>
          "command" in line ? (
            <div key={index} className="group flex min-w-0 items-start gap-2">
              <span aria-hidden="true" className="select-none text-slate-500">
                $
              </span>
              <code className="min-w-0 flex-1 whitespace-pre-wrap [overflow-wrap:anywhere]">
                {line.command}
              </code>
              <CopyButton
                value={line.command}
                label={line.label ?? "Copy command"}
                className="-my-0.5 shrink-0 text-slate-400 hover:bg-white/10 hover:text-white"
              />
            </div>
          ) : (
            <code key={index} className="block whitespace-pre-wrap text-slate-400 [overflow-wrap:anywhere]">
              {line.output || "\u00a0"}
            </code>
          ),
        )}
      </div>
    </div>
  );
}
