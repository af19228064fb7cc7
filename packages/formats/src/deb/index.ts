// Public surface of the .deb reader: import from "@packyard/formats/deb/index.ts".
export { type BinaryControlSummary, isValidPackageName, requiredControlFields } from "./binary-control.ts";
export type { DebCompression } from "./bounded-decompress.ts";
export type { ByteSource } from "./byte-reader.ts";
export {
  type ControlField,
  getControlField,
  parseControlParagraph,
  renderControlField,
  renderControlParagraph,
} from "./control-paragraph.ts";
export { DebFormatError, type DebFormatErrorCode, debFormatErrorCodes } from "./deb-format-error.ts";
export {
  compareDebianVersions,
  type DebianVersion,
  debianVersionKey,
  debianVersionProblem,
  isValidDebianVersion,
  parseDebianVersion,
} from "./debian-version.ts";
export {
  type DataCompression,
  type DebDataMember,
  type DebPackage,
  defaultMaxControlTarBytes,
  defaultMaxMembers,
  type ReadDebOptions,
  readDeb,
} from "./read-deb.ts";
