// Reads the 96-byte lead that opens every .rpm; rpm only checks its magic, version and signature type.
import { RpmFormatError } from "./rpm-format-error.ts";

export const LEAD_SIZE = 96;
export const LEAD_MAGIC = Uint8Array.of(0xed, 0xab, 0xee, 0xdb);
/** RPMSIGTYPE_HEADERSIG: a signature header follows the lead. The only kind rpm 4 reads. */
const HEADER_SIGNATURE_TYPE = 5;

export interface RpmLead {
  major: number;
  minor: number;
  /** 0 binary, 1 source. Informative only: rpm trusts the main header, and so do we. */
  type: number;
  archNumber: number;
  /** Name-version-release as the builder wrote it, cut to 65 bytes. */
  name: string;
  osNumber: number;
  signatureType: number;
}

export function parseRpmLead(buf: Uint8Array): RpmLead {
  if (buf.length < LEAD_SIZE)
    throw new RpmFormatError("RPM_TRUNCATED", "file is shorter than the lead", "lead");
  for (let i = 0; i < LEAD_MAGIC.length; i++) {
    if (buf[i] !== LEAD_MAGIC[i]) {
      throw new RpmFormatError("RPM_BAD_MAGIC", "lead magic is not ED AB EE DB: not an rpm package", "lead");
    }
  }
  const view = new DataView(buf.buffer, buf.byteOffset, LEAD_SIZE);
  const nameBytes = buf.subarray(10, 76);
  const nul = nameBytes.indexOf(0);
  const lead: RpmLead = {
    major: view.getUint8(4),
    minor: view.getUint8(5),
    type: view.getUint16(6),
    archNumber: view.getUint16(8),
    name: new TextDecoder("latin1").decode(nul === -1 ? nameBytes : nameBytes.subarray(0, nul)),
    osNumber: view.getUint16(76),
    signatureType: view.getUint16(78),
  };
  if (lead.major < 3 || lead.major > 4) {
    throw new RpmFormatError("RPM_UNSUPPORTED", `lead format version ${lead.major}`, "lead");
  }
  if (lead.signatureType !== HEADER_SIGNATURE_TYPE) {
    throw new RpmFormatError("RPM_UNSUPPORTED", `lead signature type ${lead.signatureType}`, "lead");
  }
  return lead;
}
