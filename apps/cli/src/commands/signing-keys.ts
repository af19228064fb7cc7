// packyard signing-keys list|rotate: the project's repository signing keys (the OpenPGP keys
// apt and dnf verify). A rotation makes a new key that signs from now on while the current ones
// keep signing through the overlap; a rotated key retires when its overlap ends, so keys are
// never deleted. API keys (tokens) are `packyard keys`.
import { type Command, type CommandGroup, stringOption } from "../command.ts";
import type { Context } from "../context.ts";
import { rotateKeyInput, type SigningKeyInfo } from "../contract.ts";
import { usageError } from "../errors.ts";
import { shortTime, table } from "../output.ts";
import { parseProjectRef, projectKey, requireProject } from "../project-ref.ts";

function printKeys(context: Context, keys: SigningKeyInfo[]) {
  context.print(
    table(
      ["FINGERPRINT", "ALGORITHM", "CREATED", "EXPIRES", "RETIRES"],
      keys.map((k) => [
        k.fingerprint,
        k.algorithm,
        shortTime(k.createdAt),
        k.expiresAt ? shortTime(k.expiresAt) : "never",
        k.retireAt ? shortTime(k.retireAt) : "-",
      ]),
    ),
  );
}

const list: Command = {
  usage: "signing-keys list PROJECT",
  summary: "List the project's repository signing keys",
  args: { min: 1, max: 1 },
  async run(context, [projectArg = ""]) {
    const api = context.api();
    const project = await requireProject(api, parseProjectRef(projectArg));
    const keys = await api.listKeys(projectKey(project));
    context.result({ keys }, () => printKeys(context, keys));
  },
};

const rotate: Command = {
  usage: "signing-keys rotate PROJECT",
  summary: "Make a new signing key (a rotation: the current keys keep signing through the overlap)",
  options: {
    algorithm: { type: "string", value: "rsa3072|ed25519", description: "Default rsa3072" },
    "overlap-days": {
      type: "string",
      value: "N",
      description: "Days the current keys keep signing (default 7)",
    },
  },
  args: { min: 1, max: 1 },
  async run(context, [projectArg = ""], options) {
    const days = stringOption(options, "overlap-days");
    if (days !== undefined && !/^\d{1,3}$/.test(days))
      throw usageError("--overlap-days must be a whole number of days (0–365)");
    const input = rotateKeyInput.safeParse({
      algorithm: stringOption(options, "algorithm"),
      overlapDays: days === undefined ? undefined : Number(days),
    });
    if (!input.success) {
      const issue = input.error.issues[0];
      throw usageError(
        `--${issue?.path[0] === "overlapDays" ? "overlap-days" : "algorithm"}: ${issue?.message}`,
      );
    }
    const api = context.api();
    const project = await requireProject(api, parseProjectRef(projectArg));
    const keys = await api.rotateKeys(projectKey(project), input.data);
    context.result({ keys }, () => {
      context.print(
        `New signing key for ${project.owner}/${project.slug}; machines pick it up when they re-run the setup script or refresh the keyring.`,
      );
      printKeys(context, keys);
    });
  },
};

export const signingKeysCommand: CommandGroup = {
  summary: "The project's repository signing keys",
  subcommands: { list, rotate },
};
