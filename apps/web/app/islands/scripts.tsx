// What an islands document loads (decision 054) in place of React Router's scripts: the entry's
// settings as JSON, its chunks preloaded, and the entry. Rendered only by the server.
import islandsBuild from "virtual:packyard-islands";
import type { BrowserErrorReporting } from "../../server/platform/observability/observability.ts";
import { jsonLdText } from "../lib/meta.ts";
import { ISLANDS_CONFIG_ID } from "./config.ts";

export function IslandScripts({
  nonce,
  errorReporting,
}: {
  nonce: string;
  errorReporting: BrowserErrorReporting | null;
}) {
  if (!islandsBuild) return null;
  return (
    <>
      <script
        type="application/json"
        id={ISLANDS_CONFIG_ID}
        // Data, never run; it carries the nonce like every inline script of the page, so a
        // policy audit sees no exception.
        nonce={nonce}
        dangerouslySetInnerHTML={{ __html: jsonLdText({ errorReporting }) }}
      />
      {islandsBuild.preload.map((href) => (
        <link key={href} rel="modulepreload" href={href} nonce={nonce} />
      ))}
      <script type="module" src={islandsBuild.src} nonce={nonce} />
    </>
  );
}
