// Which stored .rpm files need re-signing after a rotation, and which public keys gpg.key must
// serve so every served .rpm verifies (decision 030). Pure: the job and the route read the rows.

/** A stored .rpm: the key that signed it (null: signed before that was recorded). */
export interface RpmSignature {
  signedBy: string | null;
}

/** An .rpm is re-signed unless the newest key (the one uploads are signed with) signed it. */
export function needsResign(rpm: RpmSignature, newest: string): boolean {
  return rpm.signedBy !== newest;
}

/**
 * The keys gpg.key serves: those that sign now, and any other key a served .rpm still carries
 * the signature of (the resign-rpms job has not reached it yet), so a machine set up from
 * scratch verifies every package. An .rpm whose signer was not recorded could carry any of the
 * project's keys: all of them are served until it is re-signed. Oldest first, as given.
 */
export function keysToServe<K extends { fingerprint: string }>(
  all: readonly K[],
  active: readonly string[],
  rpmSigners: ReadonlySet<string | null>,
): K[] {
  const unknown = rpmSigners.has(null);
  return all.filter((key) => unknown || active.includes(key.fingerprint) || rpmSigners.has(key.fingerprint));
}
