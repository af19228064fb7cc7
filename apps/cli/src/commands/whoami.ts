// packyard whoami: which server, which token (its first characters and where it came from),
// whose it is, and which projects it can see.
import type { Command } from "../command.ts";
import { tokenPrefix } from "../config.ts";

export const whoamiCommand: Command = {
  usage: "whoami",
  summary: "Show the server, the token in use and the projects it can see",
  args: { min: 0, max: 0 },
  async run(context) {
    const api = context.api();
    const { server, token, tokenSource } = context.credentials();
    const projects = await api.listProjects();
    const user = projects[0]?.owner;
    context.result(
      {
        server,
        user: user ?? null,
        token: tokenPrefix(token!),
        tokenSource,
        projects: projects.map((p) => ({ owner: p.owner, slug: p.slug, visibility: p.visibility })),
      },
      () => {
        context.print(`Server:   ${server}`);
        context.print(`User:     ${user ?? "unknown (the token sees no projects yet)"}`);
        context.print(`Token:    ${tokenPrefix(token!)} (from ${tokenSource})`);
        context.print(`Projects: ${projects.length === 0 ? "none" : projects.length}`);
        for (const p of projects) context.print(`  ${p.owner}/${p.slug} (${p.visibility})`);
      },
    );
  },
};
