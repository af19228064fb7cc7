// The rule for which file paths go into primary.xml (the rest only into filelists.xml).

/**
 * yum and createrepo have always agreed on this: /etc/, anything with "bin/" in it (catching
 * /opt/x/sbin/), and /usr/lib/sendmail. dnf relies on it to resolve file requires from primary.
 */
export function isPrimaryFile(path: string): boolean {
  return path.startsWith("/etc/") || path.includes("bin/") || path === "/usr/lib/sendmail";
}
