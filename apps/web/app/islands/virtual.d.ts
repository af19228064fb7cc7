declare module "virtual:packyard-islands" {
  /** What the browser build made of the islands entry (islands-plugin.ts); null in the browser. */
  const build: import("../../islands-plugin.ts").IslandsBuild | null;
  export default build;
}
