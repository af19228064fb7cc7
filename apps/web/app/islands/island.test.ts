import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CommandBlock } from "../components/marketing/command-block.tsx";
import { IslandRendererContext } from "./context.ts";
import { Island, IslandRoot } from "./island.tsx";

const props = { title: "apt", lines: [{ command: 'echo "a & b" <c>' }, { output: "a & b" }] };
const island = createElement(Island<"command-block">, {
  name: "command-block",
  component: CommandBlock,
  props,
});

describe("Island (decision 054)", () => {
  it("is the plain component outside an islands document: no wrapper, the same HTML", () => {
    expect(renderToString(island)).toBe(renderToString(createElement(CommandBlock, props)));
  });

  it("in an islands document, wraps a root of its own that names the island and carries its props", () => {
    const html = renderToString(
      createElement(IslandRendererContext.Provider, { value: renderToString }, island),
    );
    const wrapper = html.match(/^<div class="contents" data-island="command-block" data-props="([^"]*)">/);
    expect(wrapper).not.toBeNull();
    // The props come back whole from the attribute, quotes, ampersands and angle brackets included.
    const attribute = (wrapper?.[1] ?? "")
      .replaceAll("&quot;", '"')
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">");
    expect(JSON.parse(attribute.replaceAll("&amp;", "&"))).toEqual(props);
    // Inside: exactly what the browser's hydrateRoot renders from those props (entry.client.tsx).
    const inner = html.slice(wrapper?.[0].length, -"</div>".length);
    expect(inner).toBe(
      renderToString(createElement(IslandRoot<typeof props>, { component: CommandBlock, props })),
    );
    expect(inner).toContain("echo &quot;a &amp; b&quot; &lt;c&gt;");
  });
});
