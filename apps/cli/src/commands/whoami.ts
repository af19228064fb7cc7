// packyard whoami: which server, which token (its first characters and where it came from),
// whose it is (GET /api/v1/me), its scope, and which projects it can see.
import type { Command } from "../command.ts";
import { tokenPrefix } from "../config.ts";

export const whoamiCommand: Command = {
  usage: "whoami",
  summary: "Show the server, the token in use and the projects it can see",
  args: { min: 0, max: 0 },
  async run(context) {
    const api = context.api();
    const { server, tokenSource } = context.credentials();
    const [who, projects] = await Promise.all([api.me(), api.listProjects()]);
    // With trusted publishing the token exists once the first request got it.
    const token = context.token() ?? "";
    const user = who.user.username;
    const scope = who.auth.scope;
    context.result(
      {
        server,
        user: user ?? null,
        ...(who.auth.organization ? { organization: who.auth.organization } : {}),
        token: tokenPrefix(token),
        tokenSource,
        scope: scope ?? null,
        projects: projects.map((p) => ({ owner: p.owner, slug: p.slug, visibility: p.visibility })),
      },
      () => {
        context.print(`Server:   ${server}`);
        if (who.auth.organization)
          context.print(`User:     ${who.auth.organization} (an organization's key)`);
        else context.print(`User:     ${user ?? "(no username yet: finish onboarding in the browser)"}`);
        context.print(`Token:    ${tokenPrefix(token)} (from ${tokenSource})`);
        if (scope) {
          const projectsText = scope.projects === "*" ? "all projects" : scope.projects.join(", ");
          context.print(`Scope:    ${scope.access} on ${projectsText}`);
        }
        context.print(`Projects: ${projects.length === 0 ? "none" : projects.length}`);
        for (const p of projects) context.print(`  ${p.owner}/${p.slug} (${p.visibility})`);
      },
    );
  },
};
