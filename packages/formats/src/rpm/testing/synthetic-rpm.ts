// Test-only: assembles .rpm bytes from header entries, for tests that must not depend on rpmbuild.
import { signaturePadding } from "../rpm-file.ts";
import { encodeRpmHeader, type NewHeaderEntry, stringEntry } from "../rpm-header-writer.ts";
import { LEAD_MAGIC, LEAD_SIZE } from "../rpm-lead.ts";
import { REGION_IMMUTABLE, REGION_SIGNATURES, Tag } from "../rpm-tags.ts";

export function syntheticLead(name = "synthetic-1-1"): Uint8Array {
  const lead = new Uint8Array(LEAD_SIZE);
  const view = new DataView(lead.buffer);
  lead.set(LEAD_MAGIC, 0);
  view.setUint8(4, 3);
  view.setUint16(8, 1);
  lead.set(new TextEncoder().encode(name).subarray(0, 65), 10);
  view.setUint16(76, 1);
  view.setUint16(78, 5);
  return lead;
}

/** The tags every package has, so tests only list what they are about. */
export function basicHeaderEntries(): NewHeaderEntry[] {
  return [
    stringEntry(Tag.NAME, "synthetic"),
    stringEntry(Tag.VERSION, "1"),
    stringEntry(Tag.RELEASE, "1"),
    stringEntry(Tag.ARCH, "noarch"),
  ];
}

export function syntheticRpm(options: {
  signature?: NewHeaderEntry[];
  header?: NewHeaderEntry[];
  payload?: Uint8Array;
}): Uint8Array {
  const signature = encodeRpmHeader(
    REGION_SIGNATURES,
    options.signature ?? [stringEntry(273, "0".repeat(64))],
  );
  const header = encodeRpmHeader(REGION_IMMUTABLE, options.header ?? basicHeaderEntries());
  const payload = options.payload ?? new TextEncoder().encode("payload");
  const padding = signaturePadding(signature.length);
  const out = new Uint8Array(LEAD_SIZE + signature.length + padding + header.length + payload.length);
  out.set(syntheticLead(), 0);
  out.set(signature, LEAD_SIZE);
  out.set(header, LEAD_SIZE + signature.length + padding);
  out.set(payload, LEAD_SIZE + signature.length + padding + header.length);
  return out;
}
