// The badges the project pages share: a project's visibility, a release's yanked state.
import { Ban, Globe, Lock } from "lucide-react";
import { Badge } from "../ui/badge.tsx";

export function VisibilityBadge({ visibility }: { visibility: "public" | "private" }) {
  return visibility === "private" ? (
    <Badge variant="secondary" data-testid="visibility">
      <Lock aria-hidden="true" />
      Private
    </Badge>
  ) : (
    <Badge variant="default" data-testid="visibility">
      <Globe aria-hidden="true" />
      Public
    </Badge>
  );
}

export function YankedBadge() {
  return (
    <Badge variant="warning">
      <Ban aria-hidden="true" />
      Yanked
    </Badge>
  );
}
