// Table types for Kysely. better-auth owns user/session/account/verification; the columns
// Packyard reads from them are declared here too so queries stay typed.
import type { Generated } from "kysely";

export interface UserTable {
  id: string;
  email: string;
  name: string;
  image: string | null;
  emailVerified: number | boolean;
  username: string | null;
  createdAt: string | Date;
  updatedAt: string | Date;
}

export interface SchemaMigrationTable {
  name: string;
  timestamp: string;
}

export interface Database {
  user: UserTable;
  packyard_meta: { key: string; value: string; updated_at: Generated<string> };
}
