import { relative, resolve, sep } from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { islands, islandsChunkGroup } from "./islands-plugin.ts";
import { precompress } from "./precompress.ts";

/** The server's modules: the SSR build imports them from source instead of bundling them. */
const SERVER_DIR = resolve(import.meta.dirname, "server") + sep;
/** Where React Router writes the server build's entry (react-router.config.ts). */
const SERVER_BUILD_DIR = resolve(import.meta.dirname, "build", "server");

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), islands(), precompress()],
  build: { sourcemap: false },
  environments: {
    // The server build keeps every module under server/ external: build/server/index.js imports
    // them from source (`../../server/….ts`), the same files main.ts loads, so the server and the
    // routes share one copy of each module and of its state (decision 069).
    ssr: {
      build: {
        rolldownOptions: {
          external: (id) => id.startsWith(SERVER_DIR),
          // Named relative to the entry, so the build finds them wherever the checkout is.
          makeAbsoluteExternalsRelative: false,
          output: {
            paths: (id) =>
              id.startsWith(SERVER_DIR) ? relative(SERVER_BUILD_DIR, id).split(sep).join("/") : id,
          },
        },
      },
    },
    client: {
      build: {
        rolldownOptions: {
          output: {
            // React and React DOM in one file, React Router in another: every page of the app
            // needs all three, and one file compresses smaller and costs one request less than
            // five; the islands of an islands page (decision 054) need React alone.
            codeSplitting: {
              groups: [
                { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 2 },
                { name: "router", test: /node_modules[\\/]react-router[\\/]/, priority: 2 },
                islandsChunkGroup(),
              ],
            },
          },
        },
      },
    },
  },
});
