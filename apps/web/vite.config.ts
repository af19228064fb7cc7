import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { precompress } from "./precompress.ts";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), precompress()],
  build: { sourcemap: false },
  environments: {
    client: {
      build: {
        rolldownOptions: {
          output: {
            // React, React DOM and React Router in one file: every page needs all of it, and one
            // file compresses smaller and costs one request instead of six.
            codeSplitting: {
              groups: [
                {
                  name: "framework",
                  test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
                  priority: 2,
                },
              ],
            },
          },
        },
      },
    },
  },
});
