// Public surface of the OpenPGP wrapper: import from "@packyard/formats/openpgp/index.ts".
export { buildArmoredKeyring, buildBinaryKeyring, dearmorPublicKeys } from "./keyring.ts";
export { OpenPgpError, type OpenPgpErrorCode, openPgpErrorCodes } from "./openpgp-error.ts";
export { decryptPrivateKey, type EnvelopeOptions, encryptPrivateKey } from "./private-key-envelope.ts";
export { type SignOptions, signCleartext, signDetachedArmored, signDetachedBinary } from "./signatures.ts";
export {
  describeKey,
  type GeneratedSigningKey,
  generateSigningKey,
  loadSigningKey,
  type SigningKey,
  type SigningKeyAlgorithm,
  type SigningKeyIdentity,
  unlockSigningKey,
} from "./signing-key.ts";
