// A post's picture: its featured image when it has one, otherwise a drawn cover in the tint of
// its first category, so cards look alike whichever source the post came from.
import { Boxes, Gauge, type LucideIcon, Newspaper, Rocket, ShieldCheck } from "lucide-react";
import type { PostCard } from "../../lib/blog/view.ts";
import { cn } from "../../lib/utils.ts";

const ICONS: Record<string, LucideIcon> = {
  repositories: Boxes,
  security: ShieldCheck,
  publishing: Rocket,
  engineering: Gauge,
};

// Whole class names, so Tailwind sees them.
const TINTS = [
  "from-indigo-100 via-indigo-50 to-white text-indigo-700 dark:from-indigo-500/25 dark:via-indigo-500/10 dark:to-transparent dark:text-indigo-300",
  "from-emerald-100 via-emerald-50 to-white text-emerald-700 dark:from-emerald-500/20 dark:via-emerald-500/10 dark:to-transparent dark:text-emerald-300",
  "from-amber-100 via-amber-50 to-white text-amber-700 dark:from-amber-500/20 dark:via-amber-500/10 dark:to-transparent dark:text-amber-300",
  "from-sky-100 via-sky-50 to-white text-sky-700 dark:from-sky-500/20 dark:via-sky-500/10 dark:to-transparent dark:text-sky-300",
  "from-rose-100 via-rose-50 to-white text-rose-700 dark:from-rose-500/20 dark:via-rose-500/10 dark:to-transparent dark:text-rose-300",
];
const KNOWN_TINT: Record<string, number> = { repositories: 0, security: 1, publishing: 2, engineering: 3 };

function tintOf(slug: string | undefined): string {
  if (!slug) return TINTS[0] as string;
  const known = KNOWN_TINT[slug];
  if (known !== undefined) return TINTS[known] as string;
  let hash = 0;
  for (const char of slug) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return TINTS[hash % TINTS.length] as string;
}

export function PostCover({
  post,
  className,
  large,
}: {
  post: PostCard;
  className?: string;
  large?: boolean;
}) {
  if (post.image) {
    return (
      <img
        src={post.image.url}
        alt={post.image.alt}
        loading="lazy"
        className={cn(
          "aspect-[16/9] w-full rounded-lg border border-border bg-muted object-cover",
          className,
        )}
      />
    );
  }
  const category = post.categories[0];
  const Icon = (category && ICONS[category.slug]) || Newspaper;
  return (
    <div
      aria-hidden="true"
      className={cn(
        "relative aspect-[16/9] w-full overflow-hidden rounded-lg border border-border bg-gradient-to-br",
        tintOf(category?.slug),
        className,
      )}
    >
      <div className="absolute inset-0 opacity-50 [background-image:linear-gradient(to_right,var(--border)_1px,transparent_1px),linear-gradient(to_bottom,var(--border)_1px,transparent_1px)] [background-size:28px_28px] [mask-image:radial-gradient(ellipse_at_center,black_30%,transparent_75%)]" />
      <div className="absolute inset-0 flex items-center justify-center">
        <div className={cn("rounded-2xl bg-card/90 shadow-sm ring-1 ring-border", large ? "p-5" : "p-3.5")}>
          <Icon className={large ? "size-12" : "size-8"} strokeWidth={1.5} />
        </div>
      </div>
    </div>
  );
}
