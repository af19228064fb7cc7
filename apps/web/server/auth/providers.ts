// Which sign-in providers this Packyard offers: every social provider better-auth supports whose
// AUTH_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET are set (config.ts reads them), and the generic
// OpenID Connect provider (AUTH_OIDC_*), whose id is "oidc".
import type { SocialProviders } from "@better-auth/core/social-providers";
import type { Config, SocialProviderConfig } from "../platform/config/config.ts";

/** The provider id of the generic OpenID Connect provider: its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

/** better-auth's socialProviders option for the configured providers. */
export function socialProviderOptions(providers: SocialProviderConfig[]): SocialProviders {
  const options: Record<string, unknown> = {};
  for (const provider of providers) {
    options[provider.id] = {
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      ...provider.extra,
      // Spec §9: Microsoft's profile photo at 48 px.
      ...(provider.id === "microsoft" ? { profilePhotoSize: 48 } : {}),
    };
  }
  return options as SocialProviders;
}

// How each provider names itself on its own sign-in buttons.
const LABELS: Record<string, string> = {
  apple: "Apple",
  atlassian: "Atlassian",
  cloudflare: "Cloudflare",
  cognito: "Amazon Cognito",
  discord: "Discord",
  dropbox: "Dropbox",
  facebook: "Facebook",
  figma: "Figma",
  github: "GitHub",
  gitlab: "GitLab",
  google: "Google",
  huggingface: "Hugging Face",
  kakao: "Kakao",
  kick: "Kick",
  line: "LINE",
  linear: "Linear",
  linkedin: "LinkedIn",
  microsoft: "Microsoft",
  naver: "Naver",
  notion: "Notion",
  paybin: "Paybin",
  paypal: "PayPal",
  polar: "Polar",
  railway: "Railway",
  reddit: "Reddit",
  roblox: "Roblox",
  salesforce: "Salesforce",
  slack: "Slack",
  spotify: "Spotify",
  tiktok: "TikTok",
  twitch: "Twitch",
  twitter: "X",
  vercel: "Vercel",
  vk: "VK",
  wechat: "WeChat",
  zoom: "Zoom",
};

export interface SignInProvider {
  id: string;
  label: string;
}

/** The buttons the sign-in page shows, in order: the OpenID Connect provider first. */
export function signInProviders(config: Pick<Config, "socialProviders" | "oidc">): SignInProvider[] {
  return [
    ...(config.oidc ? [{ id: OIDC_PROVIDER_ID, label: config.oidc.name }] : []),
    ...config.socialProviders.map((p) => ({ id: p.id, label: LABELS[p.id] ?? p.id })),
  ];
}
