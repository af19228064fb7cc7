// The shape of a command: its usage line, options and positional arguments (from which main.ts
// builds the parser and the help), and what it does.
import type { Context } from "./context.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help after the option name, e.g. FILE. */
  value?: string;
  description: string;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface Command {
  /** Everything after `packyard`, e.g. "push OWNER/PROJECT VERSION FILE…". */
  usage: string;
  summary: string;
  /** More help, after the usage line. */
  details?: string[];
  options?: Record<string, OptionSpec>;
  /** How many positional arguments it takes. */
  args: { min: number; max?: number };
  run(context: Context, args: string[], options: OptionValues): Promise<void>;
}

/** A command with subcommands: `packyard releases list …`. */
export interface CommandGroup {
  summary: string;
  subcommands: Record<string, Command>;
}

export const stringOption = (options: OptionValues, name: string): string | undefined => {
  const value = options[name];
  return typeof value === "string" ? value : undefined;
};
