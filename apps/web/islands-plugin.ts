// A Vite plugin that builds the islands entry (app/islands/entry.client.tsx, decision 054) into
// the browser build beside React Router's entry, so the two share chunks (React is one file for
// both), and hands the server build its URL and the chunks it imports as
// `virtual:packyard-islands`. React Router builds the browser first, so the server build reads
// what the browser build produced.
import { resolve } from "node:path";
import type { Plugin } from "vite";

/** The islands entry's source. */
export const ISLANDS_ENTRY = resolve(import.meta.dirname, "app/islands/entry.client.tsx");

export interface IslandsBuild {
  /** The entry's URL. */
  src: string;
  /** The chunks it imports, to preload beside it (no request waits on another). */
  preload: string[];
}

const VIRTUAL = "virtual:packyard-islands";
const RESOLVED = `\0${VIRTUAL}`;

export function islands(entry = ISLANDS_ENTRY): Plugin {
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

interface ChunkGraph {
  getModuleInfo(id: string): { importedIds: readonly string[] } | null;
}

/** A module importing more than this many others is a library's index (lucide-react, radix-ui). */
const LIBRARY_INDEX_IMPORTS = 30;

/**
 * A code-splitting group (Rolldown's `codeSplitting.groups`) that puts the modules the islands
 * entry imports statically, except what a group of higher priority takes (React), into one chunk,
 * "islands-shared". Left to automatic chunking the islands page loaded twenty-one files of a few
 * hundred bytes to a few kilobytes each, and each answer's headers cost more than many of the
 * files; in one chunk it is four requests and compresses better. The pages React Router renders
 * share the chunk: they import the same header, buttons and icons.
 *
 * A library's index, which re-exports hundreds of modules, is not followed: through it every
 * icon and primitive any page uses would be captured. Rolldown binds the few the islands import
 * through it to the islands' chunk by itself (e2e/marketing.spec.ts counts the page's scripts).
 */
export function islandsChunkGroup(entry = ISLANDS_ENTRY) {
  let reachable: Set<string> | undefined;
  const collect = (graph: ChunkGraph) => {
    const seen = new Set<string>();
    const pending = [...(graph.getModuleInfo(entry)?.importedIds ?? [])];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      if (seen.has(id)) continue;
      const imported = graph.getModuleInfo(id)?.importedIds ?? [];
      if (imported.length > LIBRARY_INDEX_IMPORTS) continue;
      seen.add(id);
      pending.push(...imported);
    }
    return seen;
  };
  return {
    debugName: "islands",
    priority: 1,
    name: (id: string, graph: ChunkGraph) => {
      reachable ??= collect(graph);
      return reachable.has(id) ? "islands-shared" : null;
    },
  };
}
