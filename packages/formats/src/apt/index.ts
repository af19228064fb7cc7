// Public surface of the APT index renderers: import from "@packyard/formats/apt/index.ts".
export { AptIndexError, type AptIndexErrorCode, aptIndexErrorCodes } from "./apt-index-error.ts";
export {
  comparePackagesIndexEntries,
  type PackagesIndexBlock,
  type PackagesIndexEntry,
  type PackagesIndexOrder,
  type PackagesIndexSplit,
  packagesIndexBlocks,
  renderPackagesIndex,
  renderPackagesIndexBlocks,
  sortPackagesIndexEntries,
  splitPackagesIndex,
} from "./packages-index.ts";
export { type PoolFileFacts, renderPackagesStanza, repositoryOwnedFields } from "./packages-stanza.ts";
export {
  describeIndexFile,
  formatReleaseDate,
  type ReleaseFileEntry,
  type ReleaseInput,
  renderRelease,
} from "./release-file.ts";
export { byHashPath, debFileName, packagesIndexPath, poolPath, poolPrefix } from "./repository-paths.ts";
