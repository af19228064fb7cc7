// A Vite plugin that builds the islands entry (app/islands/entry.client.tsx, decision 054) into
// the browser build beside React Router's entry, so the two share chunks (React is one file for
// both), and hands the server build its URL and the chunks it imports as
// `virtual:packyard-islands`. React Router builds the browser first, so the server build reads
// what the browser build produced.
import { resolve } from "node:path";
import type { Plugin } from "vite";

export interface IslandsBuild {
  /** The entry's URL. */
  src: string;
  /** The chunks it imports, to preload beside it (no request waits on another). */
  preload: string[];
}

const VIRTUAL = "virtual:packyard-islands";
const RESOLVED = `\0${VIRTUAL}`;

export function islands(entry = resolve(import.meta.dirname, "app/islands/entry.client.tsx")): Plugin {
  let built: IslandsBuild | undefined;
  let base = "/";
  let serve = false;
  return {
    name: "packyard-islands",
    configResolved(config) {
      base = config.base;
      serve = config.command === "serve";
    },
    buildStart() {
      if (this.environment.name !== "client" || serve) return;
      this.emitFile({ type: "chunk", id: entry, name: "islands" });
    },
    generateBundle(_options, bundle) {
      if (this.environment.name !== "client") return;
      const chunks = Object.values(bundle).filter((file) => file.type === "chunk");
      const main = chunks.find((chunk) => chunk.facadeModuleId === entry);
      if (!main) throw new Error(`packyard-islands: ${entry} was not built`);
      const preload = new Set<string>();
      const visit = (fileName: string) => {
        for (const imported of chunks.find((chunk) => chunk.fileName === fileName)?.imports ?? []) {
          if (preload.has(imported)) continue;
          preload.add(imported);
          visit(imported);
        }
      };
      visit(main.fileName);
      built = { src: `${base}${main.fileName}`, preload: [...preload].map((file) => `${base}${file}`) };
    },
    resolveId(id) {
      return id === VIRTUAL ? RESOLVED : undefined;
    },
    load(id) {
      if (id !== RESOLVED) return undefined;
      // In the browser build nothing reads it (islands are only rendered by the server).
      if (this.environment.name === "client") return "export default null;";
      // Vite's dev server compiles the entry on request.
      const value: IslandsBuild | undefined = serve ? { src: `${base}@fs${entry}`, preload: [] } : built;
      if (!value) throw new Error("packyard-islands: the browser build must run before the server build");
      return `export default ${JSON.stringify(value)};`;
    },
  };
}
