// The public release pages share the marketing site's header and footer.
import MarketingLayout from "../_marketing/layout.tsx";

export default function ReleasesLayout() {
  return <MarketingLayout />;
}
