// A project's container images on its Images tab: how to log in and push, then one card per image
// with its tags — digest, platforms of an index, size, who pushed and when — each with the
// `docker pull` to copy.
import { Boxes } from "lucide-react";
import { formatCompactCount, formatCount, formatFileSize } from "../../lib/format.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { EmptyState } from "../empty-state.tsx";
import { Badge } from "../ui/badge.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";

export interface ImageTagView {
  tag: string;
  digest: string;
  platforms: string[];
  size: number;
  pushedBy: string | null;
  updatedAt: string;
  pulls: number;
}

export interface ImageView {
  image: string;
  reference: string;
  tags: ImageTagView[];
  platformPulls: { platform: string; pulls: number }[];
}

const short = (digest: string) => `${digest.slice(0, 19)}…`;

function Command({ text, label }: { text: string; label: string }) {
  return (
    <div className="flex min-w-0 items-center gap-1 rounded-md border border-border bg-muted/40 py-1 pr-1 pl-3">
      <code className="min-w-0 flex-1 truncate font-mono text-xs" title={text}>
        {text}
      </code>
      <CopyButton value={text} label={label} successMessage="Copied" />
    </div>
  );
}

export function ImagesPanel({
  images,
  registry,
  defaultReference,
}: {
  images: ImageView[];
  registry: string;
  defaultReference: string;
}) {
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader>
          <CardTitle className="text-base">Push an image</CardTitle>
          <CardDescription>
            Log in with an API key as the password, then push to{" "}
            <code className="font-mono text-foreground">{defaultReference}</code> or to a named image under
            it.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-2">
          <Command
            text={`echo "$PACKYARD_TOKEN" | docker login ${registry} -u token --password-stdin`}
            label="Copy the login command"
          />
          <Command text={`docker push ${defaultReference}:1.0.0`} label="Copy the push command" />
        </CardContent>
      </Card>
      {images.length === 0 ? (
        <EmptyState icon={Boxes} title="No images yet">
          Push an image with docker, podman or skopeo: it appears here with its tags, platforms and size.
        </EmptyState>
      ) : (
        images.map((image) => (
          <Card key={image.image} className="overflow-hidden" data-testid="image-card">
            <CardHeader>
              <CardTitle className="break-all font-mono text-base">{image.reference}</CardTitle>
              <CardDescription>
                {image.tags.length} {image.tags.length === 1 ? "tag" : "tags"}
                {image.image === "" ? " · the project's default image" : ""}
                {image.platformPulls.length > 0
                  ? ` · pulls by platform: ${image.platformPulls
                      .map((p) => `${p.platform} ${formatCompactCount(p.pulls)}`)
                      .join(", ")}`
                  : ""}
              </CardDescription>
            </CardHeader>
            <ul className="divide-y divide-border border-t border-border">
              {image.tags.map((tag) => (
                <li key={tag.tag} className="space-y-2 px-4 py-3 sm:px-6">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                    <span className="font-mono font-medium">{tag.tag}</span>
                    <code className="font-mono text-xs text-muted-foreground" title={tag.digest}>
                      {short(tag.digest)}
                    </code>
                    {tag.platforms.map((platform) => (
                      <Badge key={platform} variant="secondary" className="font-mono text-[11px]">
                        {platform}
                      </Badge>
                    ))}
                    <span className="text-xs text-muted-foreground sm:ml-auto">
                      {formatFileSize(tag.size)} · {formatCount(tag.pulls, "pull")} ·{" "}
                      <FormattedDate iso={tag.updatedAt} withTime />
                      {tag.pushedBy ? ` · ${tag.pushedBy}` : ""}
                    </span>
                  </div>
                  <Command
                    text={`docker pull ${image.reference}@${tag.digest}`}
                    label={`Copy the pull command of ${tag.tag}`}
                  />
                </li>
              ))}
            </ul>
          </Card>
        ))
      )}
    </div>
  );
}
