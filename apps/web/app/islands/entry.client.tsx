// The browser entry of an islands document (decision 054): hydrates each island the server marked
// (islands/island.tsx) as a React root of its own, starts error reporting when the server
// configured it, and mounts the toaster at the visitor's first interaction, as root.tsx does on
// the public pages. No React Router here: links load the next page as a document.
import type { ComponentType } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import type { BrowserErrorReporting } from "../../server/platform/observability/observability.ts";
import { reportError, startErrorReporting } from "../lib/error-reporting.client.ts";
import { onFirstInteraction } from "../lib/first-interaction.ts";
import { ISLANDS_CONFIG_ID, ISLANDS_HYDRATED_ATTRIBUTE } from "./config.ts";
import { IslandRoot } from "./island.tsx";
import { isIslandName, islands } from "./registry.ts";

function readConfig(): { errorReporting: BrowserErrorReporting | null } {
  const text = document.getElementById(ISLANDS_CONFIG_ID)?.textContent;
  return text ? JSON.parse(text) : { errorReporting: null };
}

startErrorReporting(readConfig().errorReporting);

const elements = [...document.querySelectorAll<HTMLElement>("[data-island]")];
let waiting = elements.length;
const hydrated = () => {
  waiting -= 1;
  if (waiting === 0) document.documentElement.setAttribute(ISLANDS_HYDRATED_ATTRIBUTE, "");
};
for (const element of elements) {
  const name = element.dataset.island;
  if (!isIslandName(name)) {
    reportError(new Error(`Unknown island "${name}"`));
    continue;
  }
  hydrateRoot(
    element,
    <IslandRoot
      component={islands[name] as ComponentType<object>}
      props={JSON.parse(element.dataset.props ?? "{}")}
      onHydrated={hydrated}
    />,
    { onRecoverableError: (error) => reportError(error, { phase: "hydration", island: name }) },
  );
}

// Toasts (a copied command) need the toaster; it loads at the first interaction, and toasts raised
// before it mounts are replayed by the library.
onFirstInteraction(() => {
  import("../components/toaster.tsx").then(({ Toaster }) => {
    const container = document.createElement("div");
    document.body.append(container);
    createRoot(container).render(<Toaster />);
  }, reportError);
});
