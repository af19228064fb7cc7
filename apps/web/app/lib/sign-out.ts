// Signing out on purpose should land on the home page, not trip the session watcher into
// sending the user to sign-in.
import { authClient } from "./auth-client.ts";

let signingOut = false;
export const isSigningOut = () => signingOut;

export async function signOut(): Promise<boolean> {
  signingOut = true;
  try {
    const { error } = await authClient.signOut();
    if (error) {
      // Spec §4: a failed sign-out is only logged.
      console.error("sign-out failed", error);
      return false;
    }
    return true;
  } finally {
    setTimeout(() => {
      signingOut = false;
    }, 1000);
  }
}
