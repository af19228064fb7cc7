// Tag and type numbers of the RPM header format (rpmtag.h, rpm 4.18) that Packyard reads or writes.

/** Header entry data types; the numbers are the on-disk values. */
export const RpmType = {
  NULL: 0,
  CHAR: 1,
  INT8: 2,
  INT16: 3,
  INT32: 4,
  INT64: 5,
  STRING: 6,
  BIN: 7,
  STRING_ARRAY: 8,
  I18NSTRING: 9,
} as const;
export type RpmTypeNumber = (typeof RpmType)[keyof typeof RpmType];

export const RPM_TYPE_NAMES: Record<number, string> = {
  0: "NULL",
  1: "CHAR",
  2: "INT8",
  3: "INT16",
  4: "INT32",
  5: "INT64",
  6: "STRING",
  7: "BIN",
  8: "STRING_ARRAY",
  9: "I18NSTRING",
};

/** Region tags: the first index entry of a header, whose trailer closes the data store. */
export const REGION_SIGNATURES = 62;
export const REGION_IMMUTABLE = 63;
/** Tags below this are reserved for regions; rpm refuses them anywhere else. */
export const HEADER_I18NTABLE = 100;

/** Tags of the signature header (RPMSIGTAG_*). */
export const SigTag = {
  DSA: 267,
  RSA: 268,
  SHA1: 269,
  LONGSIZE: 270,
  LONGARCHIVESIZE: 271,
  SHA256: 273,
  SIZE: 1000,
  PGP: 1002,
  MD5: 1004,
  GPG: 1005,
  PAYLOADSIZE: 1007,
  RESERVEDSPACE: 1008,
} as const;

/** Tags of the main header (RPMTAG_*). */
export const Tag = {
  NAME: 1000,
  VERSION: 1001,
  RELEASE: 1002,
  EPOCH: 1003,
  SUMMARY: 1004,
  DESCRIPTION: 1005,
  BUILDTIME: 1006,
  BUILDHOST: 1007,
  SIZE: 1009,
  VENDOR: 1011,
  LICENSE: 1014,
  PACKAGER: 1015,
  GROUP: 1016,
  URL: 1020,
  OS: 1021,
  ARCH: 1022,
  OLDFILENAMES: 1027,
  FILEMODES: 1030,
  FILEFLAGS: 1037,
  SOURCERPM: 1044,
  ARCHIVESIZE: 1046,
  PROVIDENAME: 1047,
  REQUIREFLAGS: 1048,
  REQUIRENAME: 1049,
  REQUIREVERSION: 1050,
  CONFLICTFLAGS: 1053,
  CONFLICTNAME: 1054,
  CONFLICTVERSION: 1055,
  CHANGELOGTIME: 1080,
  CHANGELOGNAME: 1081,
  CHANGELOGTEXT: 1082,
  OBSOLETENAME: 1090,
  SOURCEPACKAGE: 1106,
  PROVIDEFLAGS: 1112,
  PROVIDEVERSION: 1113,
  OBSOLETEFLAGS: 1114,
  OBSOLETEVERSION: 1115,
  DIRINDEXES: 1116,
  BASENAMES: 1117,
  DIRNAMES: 1118,
  PAYLOADFORMAT: 1124,
  PAYLOADCOMPRESSOR: 1125,
  OLDSUGGESTSNAME: 1156,
  OLDSUGGESTSVERSION: 1157,
  OLDSUGGESTSFLAGS: 1158,
  OLDENHANCESNAME: 1159,
  OLDENHANCESVERSION: 1160,
  OLDENHANCESFLAGS: 1161,
  LONGSIZE: 5009,
  RECOMMENDNAME: 5046,
  RECOMMENDVERSION: 5047,
  RECOMMENDFLAGS: 5048,
  SUGGESTNAME: 5049,
  SUGGESTVERSION: 5050,
  SUGGESTFLAGS: 5051,
  SUPPLEMENTNAME: 5052,
  SUPPLEMENTVERSION: 5053,
  SUPPLEMENTFLAGS: 5054,
  ENHANCENAME: 5055,
  ENHANCEVERSION: 5056,
  ENHANCEFLAGS: 5057,
  /** Hex digest of the compressed payload (one value), by PAYLOADDIGESTALGO. */
  PAYLOADDIGEST: 5092,
  /** An OpenPGP hash algorithm number: 8 is SHA-256. */
  PAYLOADDIGESTALGO: 5093,
  /** Hex digest of the uncompressed payload (rpm 4.16+). */
  PAYLOADDIGESTALT: 5097,
} as const;

/** Dependency sense flags (RPMSENSE_*). */
export const RpmSense = {
  LESS: 1 << 1,
  GREATER: 1 << 2,
  EQUAL: 1 << 3,
  POSTTRANS: 1 << 5,
  PREREQ: 1 << 6,
  PRETRANS: 1 << 7,
  INTERP: 1 << 8,
  SCRIPT_PRE: 1 << 9,
  SCRIPT_POST: 1 << 10,
  SCRIPT_PREUN: 1 << 11,
  SCRIPT_POSTUN: 1 << 12,
  MISSINGOK: 1 << 19,
  RPMLIB: 1 << 24,
  /** Legacy weak dependencies (tags 1156-1161): set for Recommends/Supplements, clear for Suggests/Enhances. */
  STRONG: 1 << 27,
} as const;

/** File flags (RPMFILE_*). */
export const RpmFileFlag = {
  CONFIG: 1 << 0,
  DOC: 1 << 1,
  MISSINGOK: 1 << 3,
  NOREPLACE: 1 << 4,
  GHOST: 1 << 6,
  LICENSE: 1 << 7,
  README: 1 << 8,
  ARTIFACT: 1 << 12,
} as const;
