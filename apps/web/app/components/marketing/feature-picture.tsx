// A picture of the real product (a screenshot, in the visitor's color scheme) or a diagram.
import { cn } from "../../lib/utils.ts";

export interface Picture {
  /** Base name under /features/: `<name>-light.webp` and `<name>-dark.webp`, or `<name>.svg`. */
  name: string;
  kind: "screenshot" | "diagram";
  alt: string;
  width: number;
  height: number;
}

export function FeaturePicture({ picture, className }: { picture: Picture; className?: string }) {
  const frame = cn("overflow-hidden rounded-xl border border-border bg-card shadow-sm", className);
  if (picture.kind === "diagram") {
    return (
      <div className={frame}>
        <img
          src={`/features/${picture.name}.svg`}
          alt={picture.alt}
          width={picture.width}
          height={picture.height}
          loading="lazy"
          decoding="async"
          className="h-auto w-full"
        />
      </div>
    );
  }
  return (
    <div className={frame}>
      <picture>
        <source media="(prefers-color-scheme: dark)" srcSet={`/features/${picture.name}-dark.webp`} />
        <img
          src={`/features/${picture.name}-light.webp`}
          alt={picture.alt}
          width={picture.width}
          height={picture.height}
          loading="lazy"
          decoding="async"
          className="h-auto w-full"
        />
      </picture>
    </div>
  );
}
