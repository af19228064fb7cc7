// The project's README badges (decisions 033 and 083): the latest version, this month's installs
// (by package managers) and downloads (by browsers, curl and the rest), each shown as it renders
// with the Markdown to copy.

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";

export function ReadmeBadges({
  badgeBase,
  linkUrl,
  isPrivate,
}: {
  /** …/dl/{owner}/{slug}/badge */
  badgeBase: string;
  /** Where a click on a badge goes: the public release page, or the project's repository page. */
  linkUrl: string;
  isPrivate: boolean;
}) {
  const badges = [
    { name: "version", alt: "Latest version", file: "version.svg" },
    { name: "installs", alt: "Installs this month", file: "installs.svg" },
    { name: "downloads", alt: "Downloads this month", file: "downloads.svg" },
  ];
  return (
    <Card data-testid="readme-badges">
      <CardHeader className="px-4 sm:px-6">
        <CardTitle>README badges</CardTitle>
        <CardDescription>
          {isPrivate
            ? "This project is private: its badges show only to you and to requests with its read token."
            : "Updated every 5 minutes. Copy the Markdown into your README."}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4 px-4 sm:px-6">
        {badges.map((badge) => {
          const markdown = `[![${badge.alt}](${badgeBase}/${badge.file})](${linkUrl})`;
          return (
            <div key={badge.name} className="grid min-w-0 gap-2">
              <img
                src={`${badgeBase}/${badge.file}`}
                alt={badge.alt}
                height={20}
                className="h-5 w-auto self-start"
              />
              <div className="flex min-w-0 items-center gap-1 rounded-md border border-border bg-muted/40 py-1 pr-1 pl-3">
                <code
                  className="min-w-0 flex-1 truncate text-xs"
                  data-testid={`badge-markdown-${badge.name}`}
                >
                  {markdown}
                </code>
                <CopyButton value={markdown} label={`Copy the Markdown of the ${badge.name} badge`} />
              </div>
            </div>
          );
        })}
      </CardContent>
    </Card>
  );
}
