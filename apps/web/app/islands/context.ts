// How an island is rendered on the server (islands/island.tsx). entry.server.tsx provides React's
// renderToString; root.tsx passes it on only while it renders an islands document, so everywhere
// else (every other page, and every render in the browser) an island is a plain component.
import { createContext, type ReactNode } from "react";

export type IslandRenderer = (node: ReactNode) => string;

export const IslandRendererContext = createContext<IslandRenderer | null>(null);
