// The home page's install lines: the two a user of project `you/widget` copies, for APT and for
// DNF, in tabs. An island on the home page (islands/registry.ts), so its props are JSON.
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../ui/tabs.tsx";
import { CommandBlock } from "./command-block.tsx";

/** `dl`: the project's download root, `<origin>/dl/you/widget`. */
export function InstallTabs({ dl }: { dl: string }) {
  return (
    <Tabs defaultValue="apt" className="min-w-0">
      <TabsList aria-label="Package manager">
        <TabsTrigger value="apt">Debian and Ubuntu</TabsTrigger>
        <TabsTrigger value="dnf">Fedora, RHEL, Rocky</TabsTrigger>
      </TabsList>
      <TabsContent value="apt" forceMount className="mt-3 data-[state=inactive]:hidden">
        <CommandBlock
          title="apt"
          lines={[
            { command: `curl -fsSL ${dl}/setup.deb.sh | sudo bash`, label: "Copy the APT setup command" },
            { command: "sudo apt-get install widget", label: "Copy the apt-get install command" },
          ]}
        />
      </TabsContent>
      <TabsContent value="dnf" forceMount className="mt-3 data-[state=inactive]:hidden">
        <CommandBlock
          title="dnf"
          lines={[
            { command: `curl -fsSL ${dl}/setup.rpm.sh | sudo bash`, label: "Copy the DNF setup command" },
            { command: "sudo dnf install widget", label: "Copy the dnf install command" },
          ]}
        />
      </TabsContent>
    </Tabs>
  );
}
