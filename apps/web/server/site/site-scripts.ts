// The optional site scripts of spec §1 — analytics, ads, chat and heatmap — one provider per
// slot. Each loads only when its id is configured and the server runs in production; the
// Content-Security-Policy is widened for exactly the ones that load (security-headers.ts).
// The root route renders the tags this module describes, each with the request's CSP nonce.
import type { Config } from "../platform/config/config.ts";

/** One `<script>` element: an external file or inline code. */
export interface ScriptTag {
  key: string;
  src?: string;
  code?: string;
  async?: boolean;
  defer?: boolean;
  crossOrigin?: "anonymous";
  /** `data-*` attributes. */
  attributes?: Record<`data-${string}`, string>;
}

/** CSP directives a provider needs beyond ours, each with the origins it adds. */
export type CspDirective =
  | "script-src"
  | "style-src"
  | "img-src"
  | "font-src"
  | "connect-src"
  | "frame-src"
  | "media-src"
  | "worker-src"
  | "form-action";
export type CspAllowances = Partial<Record<CspDirective, string[]>>;

export type SiteScriptSlot = "analytics" | "ads" | "chat" | "heatmap";

export interface SiteScript {
  slot: SiteScriptSlot;
  provider: string;
  tags: ScriptTag[];
  csp: CspAllowances;
}

/** The providers, by slot. The ids were format-checked by config.ts. */
const providers: Record<SiteScriptSlot, (id: string) => SiteScript> = {
  // Plausible Analytics: the id is the site's domain as registered there.
  analytics: (domain) => ({
    slot: "analytics",
    provider: "Plausible",
    tags: [
      {
        key: "plausible",
        src: "https://plausible.io/js/script.js",
        defer: true,
        attributes: { "data-domain": domain },
      },
    ],
    csp: { "script-src": ["https://plausible.io"], "connect-src": ["https://plausible.io"] },
  }),
  // Google AdSense (Auto ads): the id is the publisher id, ca-pub-….
  ads: (client) => ({
    slot: "ads",
    provider: "Google AdSense",
    tags: [
      {
        key: "adsense",
        src: `https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js?client=${client}`,
        async: true,
        crossOrigin: "anonymous",
      },
    ],
    csp: {
      "script-src": [
        "https://pagead2.googlesyndication.com",
        "https://partner.googleadservices.com",
        "https://tpc.googlesyndication.com",
        "https://www.googletagservices.com",
        "https://*.adtrafficquality.google",
      ],
      "connect-src": ["https://pagead2.googlesyndication.com", "https://*.adtrafficquality.google"],
      "frame-src": [
        "https://googleads.g.doubleclick.net",
        "https://tpc.googlesyndication.com",
        "https://www.google.com",
        "https://*.adtrafficquality.google",
      ],
    },
  }),
  // Crisp chat: the id is the website id (a UUID).
  chat: (websiteId) => ({
    slot: "chat",
    provider: "Crisp",
    tags: [
      { key: "crisp-config", code: `window.$crisp=[];window.CRISP_WEBSITE_ID=${JSON.stringify(websiteId)};` },
      { key: "crisp", src: "https://client.crisp.chat/l.js", async: true },
    ],
    csp: {
      "script-src": ["https://client.crisp.chat", "https://settings.crisp.chat"],
      "style-src": ["https://client.crisp.chat"],
      "img-src": ["https://client.crisp.chat", "https://image.crisp.chat", "https://storage.crisp.chat"],
      "font-src": ["https://client.crisp.chat"],
      "connect-src": [
        "https://client.crisp.chat",
        "https://storage.crisp.chat",
        "wss://client.relay.crisp.chat",
        "wss://stream.relay.crisp.chat",
      ],
      "frame-src": ["https://game.crisp.chat"],
      "media-src": ["https://client.crisp.chat"],
    },
  }),
  // Microsoft Clarity heatmaps and recordings: the id is the project id.
  heatmap: (projectId) => ({
    slot: "heatmap",
    provider: "Microsoft Clarity",
    tags: [
      {
        key: "clarity-queue",
        code: "window.clarity=window.clarity||function(){(window.clarity.q=window.clarity.q||[]).push(arguments)};",
      },
      { key: "clarity", src: `https://www.clarity.ms/tag/${projectId}`, async: true },
    ],
    csp: {
      "script-src": ["https://www.clarity.ms", "https://scripts.clarity.ms"],
      "connect-src": ["https://*.clarity.ms"],
      "img-src": ["https://*.clarity.ms"],
    },
  }),
};

/** The site scripts that load: those whose id is set, and only in production. */
export function siteScripts(config: Pick<Config, "nodeEnv" | "siteScripts">): SiteScript[] {
  if (config.nodeEnv !== "production") return [];
  const ids: Record<SiteScriptSlot, string | undefined> = {
    analytics: config.siteScripts.analyticsId,
    ads: config.siteScripts.adsClientId,
    chat: config.siteScripts.chatId,
    heatmap: config.siteScripts.heatmapId,
  };
  return (Object.keys(providers) as SiteScriptSlot[]).flatMap((slot) => {
    const id = ids[slot];
    return id ? [providers[slot](id)] : [];
  });
}
