import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { islands, islandsChunkGroup } from "./islands-plugin.ts";
import { precompress } from "./precompress.ts";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), islands(), precompress()],
  build: { sourcemap: false },
  environments: {
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
