import { describe, expect, it } from "vitest";
import { islandsChunkGroup } from "./islands-plugin.ts";

// A module graph as Rolldown's chunking context shows it: id → ids it imports statically.
function graph(edges: Record<string, string[]>) {
  return { getModuleInfo: (id: string) => (id in edges ? { importedIds: edges[id] ?? [] } : null) };
}

const icons = Array.from({ length: 40 }, (_, i) => `/nm/lucide-react/icons/icon-${i}.mjs`);
const modules = graph({
  "/app/islands/entry.tsx": ["/nm/react-dom/client.js", "/app/islands/registry.ts"],
  "/app/islands/registry.ts": ["/app/header.tsx", "/app/tabs.tsx"],
  "/app/header.tsx": ["/app/button.tsx", "/nm/lucide-react/index.mjs", "/nm/lucide-react/icons/icon-0.mjs"],
  "/app/tabs.tsx": ["/app/button.tsx"],
  "/app/button.tsx": ["/app/utils.ts"],
  "/app/utils.ts": [],
  "/app/pricing.tsx": ["/app/button.tsx", "/nm/lucide-react/icons/icon-7.mjs"],
  "/nm/lucide-react/index.mjs": icons,
  "/nm/react-dom/client.js": [],
  ...Object.fromEntries(icons.map((icon) => [icon, []])),
});

describe("islandsChunkGroup", () => {
  const group = islandsChunkGroup("/app/islands/entry.tsx");
  const chunk = (id: string) => group.name(id, modules);

  it("puts what the islands entry imports, directly or not, in one chunk", () => {
    for (const id of [
      "/app/islands/registry.ts",
      "/app/header.tsx",
      "/app/tabs.tsx",
      "/app/button.tsx",
      "/app/utils.ts",
    ])
      expect(chunk(id), id).toBe("islands-shared");
    expect(chunk("/nm/lucide-react/icons/icon-0.mjs")).toBe("islands-shared");
  });

  it("leaves the entry itself, and what only other pages import, to automatic chunking", () => {
    expect(chunk("/app/islands/entry.tsx")).toBeNull();
    expect(chunk("/app/pricing.tsx")).toBeNull();
  });

  it("does not follow a library's index: the icons other pages use stay out", () => {
    expect(chunk("/nm/lucide-react/index.mjs")).toBeNull();
    expect(chunk("/nm/lucide-react/icons/icon-7.mjs")).toBeNull();
  });
});
