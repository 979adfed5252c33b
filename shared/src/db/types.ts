/** One service's migrations: a Postgres schema it owns and a folder of ordered `.sql` files. */
export interface MigrationSet {
  schema: string;
  /** Absolute path of the folder holding `NNN_name.sql` files. */
  directory: string;
}
