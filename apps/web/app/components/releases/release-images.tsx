// The container images of a release: each image with a tag named like the release's version,
// pulled by digest (what the tag pointed at when the page was read), with its platforms.
import { Boxes } from "lucide-react";
import { Snippet } from "../repository-setup.tsx";
import { Badge } from "../ui/badge.tsx";
import { Card } from "../ui/card.tsx";

export function ReleaseImages({
  images,
}: {
  images: { reference: string; digest: string; platforms: string[] }[];
}) {
  return (
    <section aria-labelledby="release-images-heading" className="grid gap-3">
      <h3
        id="release-images-heading"
        className="flex items-center gap-2 text-lg font-semibold tracking-tight"
      >
        <Boxes aria-hidden className="size-5 text-muted-foreground" />
        {images.length === 1 ? "Container image" : "Container images"}
      </h3>
      <Card className="grid gap-4 p-4 sm:p-5">
        {images.map((image) => (
          <div key={image.reference} className="grid gap-2">
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <span className="break-all font-mono font-medium">{image.reference}</span>
              {image.platforms.map((platform) => (
                <Badge key={platform} variant="secondary" className="font-mono text-[11px]">
                  {platform}
                </Badge>
              ))}
            </div>
            <Snippet
              value={`docker pull ${image.reference}@${image.digest}`}
              label={`Copy the pull command of ${image.reference}`}
            />
          </div>
        ))}
      </Card>
    </section>
  );
}
