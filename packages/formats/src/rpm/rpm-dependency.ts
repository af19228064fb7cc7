// Decodes RPMSENSE flag bits of a dependency into the comparison and the "needed before scripts" bit.
import { RpmSense } from "./rpm-tags.ts";

export type DependencyComparison = "EQ" | "LT" | "GT" | "LE" | "GE";

export interface RpmDependency {
  name: string;
  /** Raw RPMSENSE bits, kept so index renderers can apply their own rules. */
  flags: number;
  /** "[epoch:]version[-release]" exactly as stored; "" when unversioned. */
  evr: string;
  comparison: DependencyComparison | null;
  /** Needed before scriptlets run: prereq, pre, post, pretrans or posttrans bit set. */
  pre: boolean;
}

const SENSE_MASK = RpmSense.LESS | RpmSense.GREATER | RpmSense.EQUAL;
const PRE_MASK =
  RpmSense.PREREQ | RpmSense.SCRIPT_PRE | RpmSense.SCRIPT_POST | RpmSense.PRETRANS | RpmSense.POSTTRANS;

/** Comparison from the sense bits; null for no or a nonsensical combination (createrepo_c's rule). */
export function dependencyComparison(flags: number): DependencyComparison | null {
  switch (flags & SENSE_MASK) {
    case RpmSense.EQUAL:
      return "EQ";
    case RpmSense.LESS:
      return "LT";
    case RpmSense.GREATER:
      return "GT";
    case RpmSense.LESS | RpmSense.EQUAL:
      return "LE";
    case RpmSense.GREATER | RpmSense.EQUAL:
      return "GE";
    default:
      return null;
  }
}

export function makeDependency(name: string, flags: number, evr: string): RpmDependency {
  return { name, flags, evr, comparison: dependencyComparison(flags), pre: (flags & PRE_MASK) !== 0 };
}
