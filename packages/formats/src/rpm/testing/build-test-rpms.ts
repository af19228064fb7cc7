// Test-only: builds small real packages with rpmbuild in a temporary directory (needs rpm-build tools).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestRpms {
  dir: string;
  /** noarch, epoch 2, files under /usr/bin, /etc and /usr/share, a ghost, weak deps, a changelog. */
  alpha: string;
  /** The source package built from alpha's spec. */
  alphaSource: string;
  /** x86_64, requires alpha (versioned with epoch, as a prereq, and through a virtual provide). */
  beta: string;
  /** noarch, not installable: scriptlets, libc requires, self requires, UTF-8, 12 changelog entries. */
  weird: string;
  cleanup(): void;
}

// AutoReq off: the shebang would add /bin/sh, which nothing provides in an empty dnf installroot.
const ALPHA = `Name: packyard-alpha
Epoch: 2
Version: 1.2.3
Release: 4
Summary: Alpha test package & <friends>
AutoReq: no
License: MIT
URL: https://example.com/alpha
Vendor: Packyard Tests
Packager: Test Packager <test@example.com>
Group: Applications/System
BuildArch: noarch
Provides: alpha-virtual = 1.0
Conflicts: old-alpha < 1.0
Obsoletes: alpha-legacy <= 0.9
Recommends: gamma
Suggests: delta >= 2
%description
Alpha is a test package.
It has two lines & "quotes".
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/etc/alpha %{buildroot}/usr/share/alpha
printf '#!/bin/sh\\necho alpha\\n' > %{buildroot}/usr/bin/alpha
chmod 755 %{buildroot}/usr/bin/alpha
echo 'x=1' > %{buildroot}/etc/alpha/alpha.conf
echo data > %{buildroot}/usr/share/alpha/data.txt
%files
/usr/bin/alpha
%dir /etc/alpha
%config(noreplace) /etc/alpha/alpha.conf
/usr/share/alpha
%ghost /var/log/alpha.log
%changelog
* Tue Jan 02 2024 Alice <alice@example.com> - 2:1.2.3-4
- Second entry <b>
* Mon Jan 01 2024 Bob <bob@example.com> - 2:1.2.3-3
- First entry
`;

const BETA = `Name: packyard-beta
Version: 0.9
Release: 1
Summary: Beta binary test package
AutoReq: no
License: GPL-2.0-or-later AND MIT
URL: https://example.com/beta
Group: Development/Tools
Requires: packyard-alpha >= 2:1.2
Requires: alpha-virtual
Requires(pre): packyard-alpha
Supplements: packyard-alpha
Enhances: something-else
%global debug_package %{nil}
%global __os_install_post %{nil}
%description
Beta is arch-specific.
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/usr/lib/beta %{buildroot}/usr/sbin
printf '#!/bin/sh\\necho beta\\n' > %{buildroot}/usr/bin/beta
chmod 755 %{buildroot}/usr/bin/beta
ln -s beta %{buildroot}/usr/bin/beta-link
echo lib > %{buildroot}/usr/lib/beta/lib.txt
printf '#!/bin/sh\\n' > %{buildroot}/usr/sbin/betad
chmod 755 %{buildroot}/usr/sbin/betad
%files
/usr/bin/beta
/usr/bin/beta-link
/usr/lib/beta
/usr/sbin/betad
%changelog
* Wed Mar 06 2024 Carol <carol@example.com> - 0.9-1
- Initial build
`;

const WEIRD_DATES = [
  ...Array<string>(3).fill("Fri Mar 01 2024"),
  ...Array<string>(2).fill("Thu Feb 01 2024"),
  "Mon Jan 01 2024",
  "Sun Dec 31 2023",
  "Sat Dec 30 2023",
  "Fri Dec 29 2023",
  "Thu Dec 28 2023",
  "Wed Dec 27 2023",
  "Tue Dec 26 2023",
];

const WEIRD = `Name: packyard-weird
Version: 1.0
Release: 1
Summary: Wéird summary ünicode
License: MIT
URL: https://example.com/a?b=1&c=2
BuildArch: noarch
Requires: packyard-weird
Requires: /usr/bin/weird
Requires: /usr/share/weird/data
Requires: weird-cap = 1.0
Requires: libc.so.6(GLIBC_2.2.5)(64bit)
Requires: libc.so.6(GLIBC_2.34)(64bit)
Requires: libc.so.6()(64bit)
Requires(pretrans): pretrans-dep
Requires(posttrans): posttrans-dep
Requires(preun): preun-dep
Requires: versioned >= 1:2.0-3
Requires: weird-ver = 1:2-3
Requires: weird-other
Provides: weird-cap = 1.0
Provides: weird-other
%description
Line one\twith tab
Line two with ümlaut & <angle>
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/opt/x/sbin %{buildroot}/usr/share/weird %{buildroot}/usr/lib
echo a > %{buildroot}/usr/bin/weird
echo b > %{buildroot}/opt/x/sbin/tool
echo c > %{buildroot}/usr/share/weird/data
echo d > %{buildroot}/usr/lib/sendmail
echo e > "%{buildroot}/usr/share/weird/spaced name & <amp>.txt"
%pre
true
%post
true
%files
/usr/bin/weird
/opt/x
/usr/share/weird
/usr/lib/sendmail
%changelog
${WEIRD_DATES.map(
  (date, i) =>
    `* ${date} Ünïcödé Person <u@example.com> - 1.0-${12 - i}\n- change ${12 - i} with tab\there & <x> "q" 'a'\n`,
).join("\n")}`;

export function buildTestRpms(): TestRpms {
  const dir = mkdtempSync(join(tmpdir(), "packyard-rpms-"));
  const specs = join(dir, "SPECS");
  mkdirSync(specs);
  const build = (name: string, spec: string, args: string[]) => {
    const path = join(specs, `${name}.spec`);
    writeFileSync(path, spec);
    execFileSync("rpmbuild", ["--define", `_topdir ${dir}`, "--quiet", ...args, path], { stdio: "pipe" });
  };
  build("alpha", ALPHA, ["-ba"]);
  build("beta", BETA, ["--target", "x86_64", "-bb"]);
  build("weird", WEIRD, ["-bb"]);
  const find = (sub: string, prefix: string) => {
    const name = readdirSync(join(dir, sub)).find((file) => file.startsWith(prefix));
    if (!name) throw new Error(`rpmbuild produced no ${prefix} in ${sub}`);
    return join(dir, sub, name);
  };
  return {
    dir,
    alpha: find("RPMS/noarch", "packyard-alpha-"),
    alphaSource: find("SRPMS", "packyard-alpha-"),
    beta: find("RPMS/x86_64", "packyard-beta-"),
    weird: find("RPMS/noarch", "packyard-weird-"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
